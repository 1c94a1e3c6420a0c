// Placeholder until the apply command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('apply').description('(not built yet)').action(() => {
    console.error('edgesync apply is not available in this build');
    process.exitCode = 1;
  });
}
