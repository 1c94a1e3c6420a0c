// KV at scale: generates N pairs to a JSON source in a temp config root, then times loading and
// planning a first sync and a no-op re-plan with the real loader and planner, with peak RSS.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config/index.js';
import '../kinds/kv-pairs.js';
import { buildPlan } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import type { StateSnapshot } from '../state/types.js';
import { checkInteger } from '../util/options.js';

/** What to generate and measure. */
export interface KvBenchOptions {
  /** Number of pairs. @default 1_000_000 */
  readonly pairs?: number;
  /** Length of each value in ASCII characters. @default 100 */
  readonly valueBytes?: number;
  /** Folder under which the temp config root is made. @default os.tmpdir() */
  readonly tmpDir?: string;
  /** Milliseconds clock. @default performance.now */
  readonly now?: () => number;
}

export interface Measurement {
  readonly label: string;
  readonly ms: number;
  /** Peak resident set size of the process so far, in MiB (process.resourceUsage().maxRSS). */
  readonly peakRssMiB: number;
}

/** Runs `fn` and reports its wall time and the process's peak RSS after it. */
export async function measure<T>(label: string, fn: () => T | Promise<T>, now: () => number = () => performance.now()): Promise<{ result: T; measurement: Measurement }> {
  const start = now();
  const result = await fn();
  const ms = Math.round(now() - start);
  return { result, measurement: { label, ms, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) } };
}

/**
 * Writes a config root holding `kv.yaml` (one KvPairs document) and `pairs.json` with `pairs`
 * key-ordered pairs of `valueBytes`-character values, streamed in batches (bounded memory).
 */
export function generateKvRoot(dir: string, pairs: number, valueBytes: number): string {
  const root = fs.mkdtempSync(path.join(dir, 'edgesync-kv-bench-'));
  fs.writeFileSync(
    path.join(root, 'kv.yaml'),
    ['apiVersion: edgesync/v1', 'kind: KvPairs', 'metadata:', '  name: bench', `  account: "${'0'.repeat(32)}"`, `  namespace: "${'1'.repeat(32)}"`, 'spec:', '  sources:', '    - file: pairs.json', ''].join('\n'),
  );
  const fd = fs.openSync(path.join(root, 'pairs.json'), 'w');
  const width = String(pairs).length;
  const filler = 'v'.repeat(Math.max(0, valueBytes - width));
  let batch = '[';
  for (let i = 0; i < pairs; i++) {
    const n = String(i).padStart(width, '0');
    batch += `${i ? ',' : ''}{"key":"bench/${n}","value":"${filler}${n}"}`;
    if (batch.length > 1 << 20) {
      fs.writeSync(fd, batch);
      batch = '';
    }
  }
  fs.writeSync(fd, `${batch}]`);
  fs.closeSync(fd);
  return root;
}

/** A state snapshot holding exactly the KV keys the plan's chunks would record once acknowledged. */
export function acknowledgedSnapshot(plan: Plan): StateSnapshot {
  const kv = new Map<string, Map<string, string>>();
  for (const action of plan.actions) {
    const keys = kv.get(action.resource) ?? kv.set(action.resource, new Map()).get(action.resource)!;
    for (const [key, hash] of action.record.kvKeys ?? []) keys.set(key, hash);
  }
  return { resources: new Map(), intents: new Map(), kvKeys: (resource) => kv.get(resource) ?? new Map() };
}

const EMPTY_STATE: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: () => new Map() };

/**
 * Generates, then measures load + first-sync plan and load + no-op re-plan. The state of the
 * re-plan is an in-memory snapshot (the state store's load time is not included yet), and peak
 * RSS is the process's peak so far, so the second figure includes the first phase's peak.
 */
export async function runKvBench(options: KvBenchOptions = {}): Promise<Measurement[]> {
  const pairs = checkInteger('pairs', options.pairs ?? 1_000_000, 1);
  const valueBytes = checkInteger('valueBytes', options.valueBytes ?? 100, 1);
  const now = options.now ?? (() => performance.now());
  const root = generateKvRoot(options.tmpDir ?? os.tmpdir(), pairs, valueBytes);
  try {
    const loadAndPlan = async (state: (first: Plan | undefined) => StateSnapshot, first?: Plan): Promise<Plan> => {
      const loaded = await loadConfig({ root, env: {} });
      if (!loaded.ok) throw new Error(`bench config invalid: ${loaded.errors.map((e) => e.message).join('; ')}`);
      return buildPlan(loaded.resources, state(first));
    };
    const first = await measure(`load + plan first sync of ${pairs.toLocaleString('en-US')} pairs`, () => loadAndPlan(() => EMPTY_STATE), now);
    const snapshot = acknowledgedSnapshot(first.result);
    const again = await measure(`load + no-op re-plan of ${pairs.toLocaleString('en-US')} pairs`, () => loadAndPlan(() => snapshot), now);
    if (again.result.actions.length) throw new Error(`no-op re-plan planned ${again.result.actions.length} actions`);
    return [first.measurement, again.measurement];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// `node dist/bench/kv-bench.js [pairs]`: the goal is a no-op re-plan of 1,000,000 pairs under 5 s and 1 GiB.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const pairs = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  for (const m of await runKvBench({ pairs })) console.log(`${m.label}: ${m.ms.toLocaleString('en-US')} ms, peak RSS ${m.peakRssMiB} MiB`);
}
