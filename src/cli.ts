// The command line: one commander program; each command lives in src/cli/<command>.ts.
// Exit codes: 0 success, 1 error, 2 `plan --detailed-exitcode` with changes, 3 `apply` lost a token secret.

import { Command, CommanderError } from 'commander';
import { register as emulator } from './cli/emulator.js';
import { register as validate } from './cli/validate.js';
import { register as plan } from './cli/plan.js';
import { register as apply } from './cli/apply.js';
import { register as show } from './cli/show.js';
import { register as init } from './cli/init.js';
import { register as completion } from './cli/completion.js';
import { register as state } from './cli/state.js';
import { register as watch } from './cli/watch.js';
import { register as importer } from './cli/import.js';
import { prestartLoadHelper } from './config/load-helper.js';
import { runThreadsBelowMain } from './util/thread.js';
import { VERSION } from './util/version.js';

export function buildProgram(): Command {
  const program = new Command('edgesync')
    .description('Keep Worker, KV, Zero Trust, user profile and API token configuration in step with YAML files.')
    .version(VERSION)
    .showHelpAfterError()
    // "(Did you mean --base-url?)" after an unknown option or command; commander's default, kept on explicitly.
    .showSuggestionAfterError()
    .exitOverride()
    // Messages name an option as the user gave it: its flag, or the environment variable it came from.
    .hook('preAction', (_, command) => {
      const from: Record<string, string> = {};
      for (const option of command.options) {
        const name = option.attributeName();
        if (option.envVar && command.getOptionValueSource(name) === 'env') from[name] = option.envVar;
      }
      if (Object.keys(from).length) command.setOptionValue('givenBy', from);
    });
  for (const register of [init, validate, plan, show, apply, importer, watch, state, emulator, completion]) register(program);
  return program;
}

/**
 * Commands whose first work is a load: a load's helper thread is started with them (see
 * prestartLoadHelper). Not `apply`, whose calls take far longer than a thread's start: its load
 * starts one when that pays, and a small config's apply boots none only to drop it.
 */
const LOADING = new Set(['validate', 'plan', 'watch']);

export async function main(argv: string[]): Promise<void> {
  // The daemon's threads run below its main thread, which answers health checks (see startThread).
  if (argv[2] === 'watch') runThreadsBelowMain();
  if (LOADING.has(argv[2] ?? '')) prestartLoadHelper();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}
