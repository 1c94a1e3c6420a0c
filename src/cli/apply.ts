// `edgesync apply`: plan, show the plan, apply it, and say what happened.
// Exit codes: src/cli/exit.ts (0 in force, 1 error or failed call, 3 a person must act).

import type { Command } from 'commander';
import { withConfigAndState, withExpiryWarning, withPrune, withRemote, withTargets, withThresholds } from './common.js';
import type { ApplyCliOptions } from './apply-run.js';
import { withDrift } from './drift.js';

export function register(program: Command): void {
  withPrune(withDrift(withTargets(withExpiryWarning(withThresholds(withRemote(withConfigAndState(program.command('apply'))))))))
    .description('apply the config: plan, then send the calls that close the gap')
    .option('--auto-approve', 'apply without asking (implied when not on a terminal)')
    .option('--verbose', 'log every call')
    .option('--force', 'apply a plan over a change threshold (--max-update-share, --max-kv-share, metadata.maxChangeShare, --max-delete-share, --max-deletes)')
    .option('--allow-empty', 'apply even when the config has no document, or would orphan most of the resources in state')
    .option('--log-format <format>', 'json or pretty: the one format of everything said on stderr', 'pretty')
    // Loaded on use: the client, the engine and the state are what --help and other commands never need.
    .argument(
      '[plan]',
      'a plan saved by `plan --out`: apply exactly it (to the config root it was made from, unless --config is given), or nothing when the config or the state changed since',
    )
    .action(async (planFile: string | undefined, opts: ApplyCliOptions, cmd: Command) =>
      (await import('./apply-run.js')).runApply({ ...opts, ...(planFile !== undefined && { planFile }), configGiven: cmd.getOptionValueSource('config') !== 'default' }),
    );
}
