// Placeholder until the validate command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('validate').description('(not built yet)').action(() => {
    console.error('edgesync validate is not available in this build');
    process.exitCode = 1;
  });
}
