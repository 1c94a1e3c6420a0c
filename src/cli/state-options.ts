// What every `edgesync state` subcommand shares: its error handling and its --state, --workspace and
// --json options; here so that state.ts and state-transfer.ts both use them without importing each other.

import { Option, type Command } from 'commander';
import { DEFAULT_STATE_FILE } from '../state/index.js';

/** Errors are the user's to read, not a stack: message on stderr, exit 1. */
export function action<A extends unknown[]>(run: (...args: A) => void | Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await run(...args);
    } catch (err) {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  };
}

/** --state and --workspace, as every state command takes them. */
export function stateOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--state <file|url>', 'state: a SQLite file, or a postgres:// URL').env('EDGESYNC_STATE').default(DEFAULT_STATE_FILE))
    .addOption(new Option('--workspace <name>', 'which state of a PostgreSQL database').env('EDGESYNC_WORKSPACE'));
}

export function shared(cmd: Command): Command {
  return stateOptions(cmd).option('--json', 'print JSON');
}
