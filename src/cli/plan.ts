// `edgesync plan`: what apply would do, from the config and the state, without calling anything.
// --detailed-exitcode: 0 no changes, 2 changes, 1 error.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildPlan, planHasChanges, renderJson, renderText } from '../plan/index.js';
import { openStateStore } from '../state/index.js';
import type { StateSnapshot } from '../state/types.js';
import { withConfigAndState, type CommonOptions } from './common.js';
import { loadOrRefuse } from './load.js';

interface PlanCliOptions extends CommonOptions {
  readonly detailedExitcode?: boolean;
}

const EMPTY: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: () => new Map() };

/** A plan needs no lock: it reads one consistent snapshot (WAL lets it read while an apply writes). */
export function withSnapshot<T>(stateFile: string, use: (snapshot: StateSnapshot) => T): T {
  if (!fs.existsSync(path.resolve(stateFile))) return use(EMPTY);
  const store = openStateStore({ file: path.resolve(stateFile), readOnly: true, lock: false });
  try {
    return use(store.snapshot());
  } finally {
    store.close();
  }
}

export function register(program: Command): void {
  withConfigAndState(program.command('plan'))
    .description('show what apply would change (nothing is sent)')
    .option('--json', 'print the plan as JSON')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .action(async (opts: PlanCliOptions) => {
      const resources = await loadOrRefuse(opts);
      const plan = withSnapshot(opts.state, (snapshot) => buildPlan(resources, snapshot));
      process.stdout.write(opts.json ? renderJson(plan) + '\n' : renderText(plan, { color: process.stdout.isTTY === true }) + '\n');
      if (opts.detailedExitcode && planHasChanges(plan)) process.exitCode = 2;
    });
}
