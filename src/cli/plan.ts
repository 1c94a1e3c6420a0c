// Placeholder until the plan command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('plan').description('(not built yet)').action(() => {
    console.error('edgesync plan is not available in this build');
    process.exitCode = 1;
  });
}
