// `edgesync plan`: what apply would do, from the config and the state, without calling anything.
// --detailed-exitcode: 0 no changes, 2 changes, 1 error.

import type { Command } from 'commander';
import {
  pruneOf,
  remoteOptions,
  thresholdsOf,
  withConfigAndState,
  withPrune,
  withRemote,
  withTargets,
  withThresholds,
  type ExecOptions,
  type PruneFlags,
  type ThresholdOptions,
} from './common.js';
import { driftOf, withDrift, type DriftFlags } from './drift.js';
import { loadOrRefuse, localRoot } from './load.js';

/** The composition root of a refreshed plan: the remote's flags checked (base URL, token), as apply checks them. */
async function remoteRoot(opts: PlanCliOptions) {
  await import('../kinds/index.js');
  const { composeRoot } = await import('../engine/root.js');
  return composeRoot(remoteOptions(opts, process.env));
}

interface PlanCliOptions extends ExecOptions, ThresholdOptions, DriftFlags, PruneFlags {
  readonly out?: string;
  readonly target?: readonly string[];
  readonly detailedExitcode?: boolean;
  readonly verbose?: boolean;
}

export function register(program: Command): void {
  // The remote's flags serve --refresh, which reads the provider; without it nothing is sent.
  withPrune(withDrift(withTargets(withThresholds(withRemote(withConfigAndState(program.command('plan')))))))
    .description('show what apply would change (nothing is sent; --refresh reads what is there first)')
    .option('--json', 'print the plan as JSON (the shape of a saved plan, docs/plan-format.md)')
    .option('--out <file>', 'also save the plan, for `edgesync apply FILE` to apply exactly it (no secret, no KV value)')
    .option('--verbose', 'list every resource left out by --target or unchanged, each KV chunk, and what each change waits for')
    .option('--detailed-exitcode', 'exit 0 when in step, 2 with changes to apply, 3 when nothing is to apply but something needs a person, 1 on error')
    .action(async (opts: PlanCliOptions) => {
      const thresholds = thresholdsOf(opts);
      const root = opts.refresh ? await remoteRoot(opts) : await localRoot(opts);
      // The state is read while the files are built: planOffline below then reads only what changed since.
      const config = await loadOrRefuse(root, undefined, { readStateAhead: true });
      const [{ configRootOf, deletesEverything, madeFrom, massOrphaning, renderJson, renderText, savedPlanText, thresholdBreaches }, { planExitCode }] = await Promise.all([
        import('../plan/index.js'),
        import('./exit.js'),
      ]);
      const pruned = pruneOf(opts);
      const plan = await root.planOffline(config.resources, opts.target, { ...driftOf(opts), ...pruned });
      // What the plan was made from lists every resource's hash: made only for the JSON and a saved plan.
      // It names the config root, which `apply FILE` reads when not given --config.
      let madeOnce: ReturnType<typeof madeFrom> | undefined;
      const made = () => (madeOnce ??= madeFrom(plan, config, configRootOf(root.source.root, process.cwd()), pruned));
      process.stdout.write(opts.json ? renderJson(plan, made()) + '\n' : renderText(plan, { color: process.stdout.isTTY === true, verbose: opts.verbose === true }) + '\n');
      if (opts.out !== undefined) {
        const { writeFileSync } = await import('node:fs');
        writeFileSync(opts.out, savedPlanText(plan, made()));
        process.stderr.write(`Plan saved to ${opts.out}: \`edgesync apply ${opts.out}\` applies exactly it, while the config and the state stay as they are.\n`);
      }
      const everything = deletesEverything(plan, opts.config);
      if (everything) process.stderr.write(`warning: ${everything}; \`apply\` refuses it.\n`);
      const dropping = massOrphaning(plan, opts.config);
      if (dropping) process.stderr.write(`warning: ${dropping.message} \`apply\` refuses it without --allow-empty.\n`);
      for (const breach of thresholdBreaches(plan, thresholds)) process.stderr.write(`warning: ${breach}: \`apply\` refuses it without --force.\n`);
      if (opts.detailedExitcode) process.exitCode = planExitCode(plan);
    });
}
