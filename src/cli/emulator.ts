// Placeholder until the emulator command lands; replaced by its implementation.
import type { Command } from 'commander';

export function register(program: Command): void {
  program.command('emulator').description('(not built yet)').action(() => {
    console.error('edgesync emulator is not available in this build');
    process.exitCode = 1;
  });
}
