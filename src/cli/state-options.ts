// What every `edgesync state` subcommand shares: its error handling and its --state, --workspace, --env and
// --json options; here so that state.ts and state-transfer.ts both use them without importing each other.

import { Option, type Command } from 'commander';
import { DEFAULT_STATE_FILE } from '../state/index.js';
import { withEnvironment } from './common.js';

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

/** --state and --workspace: `edgesync import`'s, which records what it writes as documents of the config root, never of an environment. */
export function baseStateOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--state <file|url>', 'state: a SQLite file, or a postgres:// URL').env('EDGESYNC_STATE').default(DEFAULT_STATE_FILE))
    .addOption(new Option('--workspace <name>', 'which state of a PostgreSQL database').env('EDGESYNC_WORKSPACE'));
}

/** --state, --workspace and --env, as every state command takes them: `--env NAME` reaches the state `apply --env NAME` writes. */
export function stateOptions(cmd: Command): Command {
  return withEnvironment(baseStateOptions(cmd));
}

export function shared(cmd: Command): Command {
  return stateOptions(cmd).option('--json', 'print JSON');
}
