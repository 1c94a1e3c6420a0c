// `edgesync plan`: what apply would do, from the config and the state, without calling anything.
// --detailed-exitcode: 0 no changes, 2 changes, 1 error.

import type { Command } from 'commander';
import { withConfigAndState, type CommonOptions } from './common.js';
import { loadOrRefuse, localRoot } from './load.js';

interface PlanCliOptions extends CommonOptions {
  readonly detailedExitcode?: boolean;
}

export function register(program: Command): void {
  withConfigAndState(program.command('plan'))
    .description('show what apply would change (nothing is sent)')
    .option('--json', 'print the plan as JSON')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .action(async (opts: PlanCliOptions) => {
      const root = await localRoot(opts);
      const resources = await loadOrRefuse(root);
      const { massOrphaning, planHasPending, renderJson, renderText } = await import('../plan/index.js');
      const plan = root.planOffline(resources);
      process.stdout.write(opts.json ? renderJson(plan) + '\n' : renderText(plan, { color: process.stdout.isTTY === true }) + '\n');
      const dropping = massOrphaning(plan, opts.config);
      if (dropping) process.stderr.write(`warning: ${dropping.message} \`apply\` refuses it without --allow-empty.\n`);
      if (opts.detailedExitcode && planHasPending(plan)) process.exitCode = 2;
    });
}
