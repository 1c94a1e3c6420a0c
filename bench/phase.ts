// One benchmark phase in a process of its own, so its peak RSS and CPU time are edgesync's alone:
// `node dist-bench/bench/phase.js plan|apply --config DIR --state FILE|URL [--base-url URL]`, JSON on stdout.

import { pathToFileURL } from 'node:url';
import { optionalToken } from '../src/api/index.js';
import { folderSource } from '../src/config/source.js';
import { composeRoot, type Root } from '../src/engine/root.js';
import '../src/kinds/index.js';
import type { DesiredResource } from '../src/kinds/kind.js';
import type { Plan } from '../src/plan/types.js';
import { stateBackend } from '../src/state/select.js';
import { fail, parseRateLimit } from '../src/util/options.js';

export type PhaseMode = 'plan' | 'apply';

/** What a phase process prints on exit. */
export interface PhaseReport {
  readonly mode: PhaseMode;
  /** Wall time of the whole phase: load, state, plan and (apply) the calls. */
  readonly ms: number;
  readonly loadMs: number;
  /** Reading the state snapshot and planning against it. */
  readonly planMs: number;
  readonly applyMs: number;
  /** User + system CPU time of this process over the phase. */
  readonly cpuMs: number;
  /** The part of cpuMs spent after planning: sending the chunks and recording them. */
  readonly applyCpuMs: number;
  /** Peak resident set size of this process (process.resourceUsage().maxRSS is in KiB). */
  readonly maxRssBytes: number;
  /** Calls the client made, answered or not. */
  readonly requests: number;
  readonly actions: number;
  readonly failed: number;
}

export interface PhaseArgs {
  readonly mode: PhaseMode;
  readonly config: string;
  /** A SQLite file or a postgres:// URL, as `--state` takes. */
  readonly state: string;
  /** The workspace of a PostgreSQL state. @default 'default' */
  readonly workspace?: string;
  /** Required for `apply`. */
  readonly baseUrl?: string;
  /** The client's request rate cap, per credential, as `--rate-limit N/SECONDS`. @default edgesync's own */
  readonly rateLimit?: string;
}

const cpuMs = (): number => {
  const u = process.resourceUsage();
  return (u.userCPUTime + u.systemCPUTime) / 1000;
};

async function load(root: Root): Promise<readonly DesiredResource[]> {
  const loaded = await root.load();
  if (!loaded.ok)
    throw new Error(
      `bench config invalid: ${loaded.errors
        .slice(0, 5)
        .map((e) => e.message)
        .join('; ')}`,
    );
  return loaded.resources;
}

/** A moment of the phase: wall and CPU milliseconds. */
interface Mark {
  readonly at: number;
  readonly cpu: number;
}

const mark = (): Mark => ({ at: performance.now(), cpu: cpuMs() });

interface Ran {
  readonly plan: Plan;
  /** When planning ended (and applying began). */
  readonly planned: Mark;
  readonly requests: number;
  readonly failed: number;
}

/** Plans against the state as `edgesync plan` does: read-only, and empty before a first sync. */
async function planOnly(resources: readonly DesiredResource[], root: Root): Promise<Ran> {
  return { plan: await root.planOffline(resources), planned: mark(), requests: 0, failed: 0 };
}

/** The composition root `edgesync apply` would build, with a sink counting the client's calls. */
function benchRoot(args: PhaseArgs, counter: { requests: number }): Root {
  // As `edgesync apply`: no environment token is needed when Credentials documents sign everything.
  const token = optionalToken({ env: process.env });
  const remote = args.mode === 'apply' ? { baseUrl: args.baseUrl ?? fail('base-url', 'the emulator URL for apply', args.baseUrl), ...(token && { token }) } : undefined;
  return composeRoot({
    // The environment is the phase's own (the bench hands it exactly the credentials' variables).
    source: folderSource(args.config),
    state: stateBackend(args.state, args.workspace),
    owner: 'edgesync bench',
    env: process.env,
    ...(remote && { remote }),
    ...(args.rateLimit !== undefined && { rateLimit: parseRateLimit(args.rateLimit) }),
    sinks: [{ onResponse: () => counter.requests++ }],
  });
}

/** Plans and applies through the engine, as `edgesync apply` does. */
async function planAndApply(resources: readonly DesiredResource[], root: Root, counter: { requests: number }): Promise<Ran> {
  const { engine, close } = await root.session();
  try {
    const plan = await engine.plan(resources);
    const planned = mark();
    const result = await engine.apply(plan, resources);
    return { plan, planned, requests: counter.requests, failed: result.failed.length + result.uncertain.length + result.skipped.length };
  } finally {
    await close();
  }
}

/** Runs one phase and measures it; the process should do nothing else, so its peak RSS is the phase's. */
export async function runPhase(args: PhaseArgs): Promise<PhaseReport> {
  const start = mark();
  const counter = { requests: 0 };
  const root = benchRoot(args, counter);
  const resources = await load(root);
  const loaded = mark();
  const { plan, planned, requests, failed } = args.mode === 'plan' ? await planOnly(resources, root) : await planAndApply(resources, root, counter);
  const end = mark();
  return {
    mode: args.mode,
    ms: Math.round(end.at - start.at),
    loadMs: Math.round(loaded.at - start.at),
    planMs: Math.round(planned.at - loaded.at),
    applyMs: Math.round(end.at - planned.at),
    cpuMs: Math.round(end.cpu - start.cpu),
    applyCpuMs: Math.round(end.cpu - planned.cpu),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    requests,
    actions: plan.actions.length,
    failed,
  };
}

/** `plan|apply --config DIR --state FILE|URL [--workspace NAME] [--base-url URL] [--rate-limit N/SECONDS]`. */
export function parsePhaseArgs(argv: readonly string[]): PhaseArgs {
  const [mode, ...rest] = argv;
  if (mode !== 'plan' && mode !== 'apply') fail('mode', "'plan' or 'apply'", mode);
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    if (!rest[i]?.startsWith('--') || rest[i + 1] === undefined) fail('arguments', '--flag value pairs', rest.slice(i).join(' '));
    flags.set(rest[i].slice(2), rest[i + 1]);
  }
  const need = (name: string): string => flags.get(name) ?? fail(name, 'a value', undefined);
  if (flags.has('rate-limit')) parseRateLimit(flags.get('rate-limit')!);
  return {
    mode,
    config: need('config'),
    state: need('state'),
    ...(flags.has('workspace') && { workspace: flags.get('workspace') }),
    ...(flags.has('base-url') && { baseUrl: flags.get('base-url') }),
    ...(flags.has('rate-limit') && { rateLimit: flags.get('rate-limit') }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runPhase(parsePhaseArgs(process.argv.slice(2)));
  process.stdout.write(JSON.stringify(report) + '\n');
}
