// Placeholder until the watch command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('watch').description('(not built yet)').action(() => {
    console.error('edgesync watch is not available in this build');
    process.exitCode = 1;
  });
}
