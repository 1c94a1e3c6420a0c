// `edgesync plan`: what apply would do, from the config and the state, without calling anything.
// --detailed-exitcode: 0 no changes, 2 changes, 1 error.

import type { Command } from 'commander';
import {
  pruneOf,
  remoteOptions,
  thresholdsOf,
  withConfigAndState,
  withExpiryWarning,
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
import { planOutputOf, renderPlanAs, withPlanOutput, type PlanOutputFlags } from './plan-output.js';

/** The composition root of a refreshed plan: the remote's flags checked (base URL, token), as apply checks them. */
async function remoteRoot(opts: PlanCliOptions) {
  await import('../kinds/index.js');
  const { composeRoot } = await import('../engine/root.js');
  return composeRoot(remoteOptions(opts, process.env));
}

interface PlanCliOptions extends ExecOptions, ThresholdOptions, DriftFlags, PruneFlags, PlanOutputFlags {
  readonly out?: string;
  readonly target?: readonly string[];
  readonly detailedExitcode?: boolean;
}

export function register(program: Command): void {
  // The remote's flags serve --refresh, which reads the provider; without it nothing is sent.
  withPlanOutput(withPrune(withDrift(withTargets(withExpiryWarning(withThresholds(withRemote(withConfigAndState(program.command('plan')))))))))
    .description('show what apply would change (nothing is sent; --refresh reads what is there first)')
    .option('--json', 'print the plan as JSON: --format json')
    .option('--out <file>', 'also save the plan, for `edgesync apply FILE` to apply exactly it (no secret, no KV value)')
    .option('--verbose', 'list every resource left out by --target or unchanged, each KV chunk, and what each change waits for')
    .option('--detailed-exitcode', 'exit 0 when in step, 2 with changes to apply, 3 when nothing is to apply but something needs a person, 1 on error')
    .action(async (opts: PlanCliOptions) => {
      const thresholds = thresholdsOf(opts);
      const output = planOutputOf(opts);
      const root = opts.refresh ? await remoteRoot(opts) : await localRoot(opts);
      // The state is read while the files are built: planOffline below then reads only what changed since.
      const config = await loadOrRefuse(root, undefined, { readStateAhead: true });
      const [{ configRootOf, deletesEverything, madeFrom, massOrphaning, planToJson, savedPlanText, thresholdBreaches }, { planDeniedCode, planExitCode }] = await Promise.all([
        import('../plan/index.js'),
        import('./exit.js'),
      ]);
      const pruned = pruneOf(opts);
      const plan = await root.planOffline(config.resources, opts.target, { ...driftOf(opts), ...pruned });
      // What the plan was made from lists every resource's hash: made only for the JSON and a saved plan.
      // It names the config root, which `apply FILE` reads when not given --config, and the environment it must be applied to.
      let madeOnce: ReturnType<typeof madeFrom> | undefined;
      const made = () => (madeOnce ??= madeFrom(plan, config, configRootOf(root.source.root, process.cwd()), pruned, opts.env));
      // The Markdown names no config root or hash: the JSON of the plan alone.
      const json = () => planToJson(plan, output.format === 'json' ? made() : null);
      const whole = opts.out === undefined ? undefined : `the saved plan ${opts.out} holds it whole (\`edgesync show ${opts.out}\`)`;
      process.stdout.write(`${await renderPlanAs(output, () => plan, json, whole)}\n`);
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
      const denied = planDeniedCode(plan);
      if (denied) process.stderr.write('Denied by policy: `apply` sends nothing of this plan.\n');
      process.exitCode = opts.detailedExitcode ? planExitCode(plan) : denied;
    });
}
