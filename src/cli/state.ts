// Placeholder until the state command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('state').description('(not built yet)').action(() => {
    console.error('edgesync state is not available in this build');
    process.exitCode = 1;
  });
}
