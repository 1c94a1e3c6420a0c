// The pace per credential: accounts under their own credentials against an emulator that counts
// its rate limit per credential, as the provider does per user; each scenario in fresh processes.
// Then pacing by the server's count alone: edgesync's own ceiling far above, the emulator's headers.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fingerprint } from '../src/emulator/auth.js';
import { checkInteger, checkString, parseRate } from '../src/util/options.js';
import { runPhaseProcess, startEmulatorProcess, type LoggedCall } from './processes.js';
import { seconds, verdict } from './report.js';

/** What to send and at which pace. */
export interface PacingBenchOptions {
  /** Calls per account: one KV bulk write per namespace. @default 600 */
  readonly calls?: number;
  /** The rate both edgesync and the emulator keep per credential, "N/SECONDS". @default PACING_RATE */
  readonly rate?: string;
  /** Folder under which the temp config roots are made. @default os.tmpdir() */
  readonly tmpDir?: string;
  /** Progress lines. @default writes to stderr */
  readonly progress?: (line: string) => void;
}

/** One scenario: which accounts, signed by which credentials. */
interface PacingScenario {
  readonly label: string;
  /** Credential name → the accounts it signs. */
  readonly credentials: Readonly<Record<string, readonly string[]>>;
}

export interface PacingRow {
  readonly label: string;
  readonly calls: number;
  /** Calls the emulator answered, per credential (by name), 429s included. */
  readonly perCredential: Readonly<Record<string, number>>;
  readonly wallMs: number;
  readonly applyMs: number;
  readonly limited: number;
  /** Rows of the runs paced by the server's count: whether the emulator sent it, and calls ÷ rate. */
  readonly byHeaders?: { readonly sent: boolean; readonly idealMs: number };
}

/** edgesync's own ceiling in the runs paced by headers: far above the emulator's, so only the headers pace. */
const HEADER_CEILING = '100000/10';

/** The goal of the run paced by headers: at most this many 429s, within this many times the ideal time. */
const HEADER_GOAL = { limited: 1, ratio: 1.1 } as const;

/** 100 calls per 10 s per credential. */
export const PACING_RATE = '100/10';

const ACCOUNT_A = 'a'.repeat(32);
const ACCOUNT_B = 'b'.repeat(32);

const PACING_SCENARIOS: readonly PacingScenario[] = [
  { label: 'one account, one credential', credentials: { a: [ACCOUNT_A] } },
  { label: 'two accounts, two credentials', credentials: { a: [ACCOUNT_A], b: [ACCOUNT_B] } },
  { label: 'two accounts, one credential (one shared pace)', credentials: { shared: [ACCOUNT_A, ACCOUNT_B] } },
];

const envName = (credential: string): string => `BENCH_TOKEN_${credential.toUpperCase()}`;

/** A namespace id per account and index: 32 hex digits. */
const namespaceOf = (account: string, i: number): string => `${account.slice(0, 16)}${i.toString(16).padStart(16, '0')}`;

/** Writes one Credentials document per credential and `calls` one-pair KvPairs documents per account. */
function writePacingConfig(root: string, scenario: PacingScenario, calls: number): void {
  fs.mkdirSync(root, { recursive: true });
  const credentials = Object.entries(scenario.credentials).map(([name, accounts]) =>
    [
      'apiVersion: edgesync/v1',
      'kind: Credentials',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      `  secret: { env: ${envName(name)} }`,
      `  accounts: [${accounts.map((a) => `"${a}"`).join(', ')}]`,
    ].join('\n'),
  );
  fs.writeFileSync(path.join(root, 'credentials.yaml'), credentials.join('\n---\n') + '\n');
  for (const account of Object.values(scenario.credentials).flat()) {
    const docs = Array.from({ length: calls }, (_, i) =>
      [
        'apiVersion: edgesync/v1',
        'kind: KvPairs',
        'metadata:',
        `  name: ns-${i}`,
        `  account: "${account}"`,
        `  namespace: "${namespaceOf(account, i)}"`,
        'spec:',
        '  pairs:',
        `    - { key: k, value: v${i} }`,
      ].join('\n'),
    );
    fs.writeFileSync(path.join(root, `${account}.yaml`), docs.join('\n---\n') + '\n');
  }
}

/**
 * Runs one scenario against a fresh emulator keeping `rate`, edgesync capped at `ceiling`; every call
 * must succeed. `headers: false` has the emulator leave its count out of its answers.
 */
async function runScenario(scenario: PacingScenario, calls: number, rate: string, dir: string, ceiling = rate, headers = true): Promise<PacingRow> {
  const root = path.join(dir, 'config');
  fs.rmSync(dir, { recursive: true, force: true });
  writePacingConfig(root, scenario, calls);
  const tokens = Object.fromEntries(Object.keys(scenario.credentials).map((name) => [name, randomBytes(16).toString('hex')]));
  // Each token is tied to its accounts, so a call signed by the wrong one is answered 403 and fails the run.
  const granted = Object.entries(scenario.credentials).map(([name, accounts]) => `${tokens[name]}=${accounts.join(',')}`);
  const emulator = await startEmulatorProcess(granted[0], [...granted.slice(1).flatMap((t) => ['--token', t]), '--rate-limit', rate]);
  try {
    if (!headers) await setFaults(emulator.url, { rateLimitHeaders: false });
    const env = { PATH: process.env.PATH, ...Object.fromEntries(Object.entries(tokens).map(([name, t]) => [envName(name), t])) };
    const report = await runPhaseProcess({ mode: 'apply', config: root, state: path.join(dir, 'state.db'), baseUrl: emulator.url, rateLimit: ceiling }, env);
    if (report.failed) throw new Error(`${scenario.label}: ${report.failed} actions did not succeed`);
    const log = await emulator.requestLog();
    return {
      label: scenario.label,
      calls: report.actions,
      perCredential: perCredential(log, tokens),
      wallMs: report.ms,
      applyMs: report.applyMs,
      limited: log.filter((r) => r.status === 429).length,
    };
  } finally {
    await emulator.stop();
  }
}

/** Changes the running emulator's fault settings through its inspection endpoint. */
async function setFaults(url: string, faults: Record<string, unknown>): Promise<void> {
  const res = await fetch(url.replace(/\/client\/v4$/, '/__emulator/faults'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  if (!res.ok) throw new Error(`the emulator refused its fault settings: ${res.status}`);
}

/** Calls per credential name, matched by the fingerprint the emulator logs (never the token). */
function perCredential(log: readonly LoggedCall[], tokens: Readonly<Record<string, string>>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of log) {
    const name = Object.keys(tokens).find((n) => call.signedBy === `bearer ${fingerprint(tokens[n])}`) ?? '(other)';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export async function runPacingBench(options: PacingBenchOptions = {}): Promise<readonly PacingRow[]> {
  const calls = checkInteger('calls', options.calls ?? 600, 1);
  const rate = checkString('rate', options.rate ?? PACING_RATE);
  parseRate(rate, PACING_RATE);
  const say = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = fs.mkdtempSync(path.join(checkString('tmpDir', options.tmpDir ?? os.tmpdir()), 'edgesync-pacing-bench-'));
  try {
    const rows: PacingRow[] = [];
    for (const [i, scenario] of PACING_SCENARIOS.entries()) {
      say(`pacing: ${scenario.label}, ${calls.toLocaleString('en-US')} calls per account at ${rate} per credential…`);
      const row = await runScenario(scenario, calls, rate, path.join(dir, String(i)));
      say(`  ${(row.wallMs / 1000).toFixed(2)} s, ${row.calls} calls, ${row.limited} answered 429`);
      rows.push(row);
    }
    const { count, seconds: windowSeconds } = parseRate(rate, PACING_RATE);
    const idealMs = (calls / count) * windowSeconds * 1000;
    for (const sent of [true, false]) {
      const scenario = PACING_SCENARIOS[0]!;
      const label = sent ? "paced by the emulator's headers" : 'no headers: 429s alone';
      say(`pacing: ${label}, ${calls.toLocaleString('en-US')} calls at ${rate}, edgesync's ceiling ${HEADER_CEILING}…`);
      const row = await runScenario(scenario, calls, rate, path.join(dir, sent ? 'headers' : 'no-headers'), HEADER_CEILING, sent);
      say(`  ${(row.wallMs / 1000).toFixed(2)} s, ${row.calls} calls, ${row.limited} answered 429`);
      rows.push({ ...row, label, byHeaders: { sent, idealMs } });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function renderPacingTable(all: readonly PacingRow[], rate: string): string {
  const rows = all.filter((r) => !r.byHeaders);
  const head = ['scenario', 'calls', 'calls per credential', 'wall', 'apply', 'answered 429'];
  const lines = [`| ${head.join(' | ')} |`, `| --- |${' ---: |'.repeat(head.length - 1)}`];
  for (const r of rows) {
    const per = Object.entries(r.perCredential)
      .map(([name, n]) => `${name} ${n.toLocaleString('en-US')}`)
      .join(', ');
    lines.push(`| ${r.label} | ${r.calls.toLocaleString('en-US')} | ${per} | ${seconds(r.wallMs)} | ${seconds(r.applyMs)} | ${r.limited} |`);
  }
  const table = [`Each credential paced at ${rate} by edgesync and by the emulator:`, '', ...lines];
  const paced = all.filter((r) => r.byHeaders);
  return paced.length === 0 ? table.join('\n') : [...table, '', renderHeaderTable(paced, rate)].join('\n');
}

/** The runs paced by the server's count: calls sent (429s included), wall time against calls ÷ rate. */
function renderHeaderTable(rows: readonly PacingRow[], rate: string): string {
  const head = ['run', 'actions', 'calls answered', 'answered 429', 'wall', 'apply', 'ideal', 'wall ÷ ideal'];
  const lines = [`| ${head.join(' | ')} |`, `| --- |${' ---: |'.repeat(head.length - 1)}`];
  for (const r of rows) {
    const sent = Object.values(r.perCredential).reduce((a, b) => a + b, 0);
    const ideal = r.byHeaders!.idealMs;
    lines.push(
      `| ${r.label} | ${r.calls.toLocaleString('en-US')} | ${sent.toLocaleString('en-US')} | ${r.limited} | ${seconds(r.wallMs)} | ${seconds(r.applyMs)} | ${seconds(ideal)} | ${(r.wallMs / ideal).toFixed(2)}× |`,
    );
  }
  return [`One credential against the emulator at ${rate}, edgesync's own ceiling ${HEADER_CEILING} (only the server's count paces it):`, '', ...lines].join('\n');
}

/** The goal: two credentials take about the time one takes alone (within 15%), and the shared pace shows why. */
export function renderPacingGoal(all: readonly PacingRow[]): string {
  const [alone, apart, shared] = all.filter((r) => !r.byHeaders);
  const paced = all.find((r) => r.byHeaders?.sent);
  const headerGoal = paced ? `\n${renderHeaderGoal(paced)}` : '';
  if (!alone || !apart) return headerGoal.trimStart();
  const ratio = apart.applyMs / alone.applyMs;

  const contrast = shared ? `; under one shared credential the same calls take ${seconds(shared.applyMs)}` : '';
  return `- Two credentials finish ${apart.calls.toLocaleString('en-US')} calls in ${seconds(apart.applyMs)}, one alone its ${alone.calls.toLocaleString('en-US')} in ${seconds(alone.applyMs)}: ${ratio.toFixed(2)}× (goal about 1×, at most 1.15×: ${verdict(ratio <= 1.15)})${contrast}.${headerGoal}`;
}

/** The goal: paced by the server's count alone, at most one 429 and within 1.1× of calls ÷ rate (whole phase, wall). */
function renderHeaderGoal(r: PacingRow): string {
  const ratio = r.wallMs / r.byHeaders!.idealMs;
  const ok = r.limited <= HEADER_GOAL.limited && ratio <= HEADER_GOAL.ratio;
  return (
    `- Paced by the emulator's headers, ${r.calls.toLocaleString('en-US')} actions finish with ${r.limited} answer${r.limited === 1 ? '' : 's'} of 429 ` +
    `in ${seconds(r.wallMs)}, ${ratio.toFixed(2)}× the ideal ${seconds(r.byHeaders!.idealMs)} (goal at most ${HEADER_GOAL.limited} answer of 429 and at most ${HEADER_GOAL.ratio}×: ${verdict(ok)}).`
  );
}
