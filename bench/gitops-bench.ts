// Following a git remote: how soon a push reaches the interface, from a signed push webhook and from
// interval polling; one `watch --git` on a bare repository of the bench's own, the emulator's log as the clock.

import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedRequest } from '../src/emulator/types.js';
import { checkFunction, checkInteger, checkString } from '../src/util/options.js';
import { startEmulatorProcess, startWatchProcess, type EmulatorProcess, type LogLine, type WatchProcess } from './processes.js';
import { seconds, verdict } from './report.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
/** The bound from a push webhook received to the first call sent. */
const WEBHOOK_GOAL_MS = 2_000;
/** The git source's poll interval floor (`watch --interval`). */
const LEAST_INTERVAL_MS = 10_000;

export interface GitopsBenchOptions {
  /** Pushes timed on each path (webhook, then polling). @default 10 */
  readonly pushes?: number;
  /** GatewayList documents in the config. @default 20 */
  readonly lists?: number;
  /** `--interval` of the polling daemon, at least 10 s. @default 10000 */
  readonly intervalMs?: number;
  /** @default os.tmpdir() */
  readonly tmpDir?: string;
  /** @default writes to stderr */
  readonly progress?: (line: string) => void;
}

/** The options checked (bad values throw an OptionError), before anything is made or started. */
export function checkGitopsBenchOptions(options: GitopsBenchOptions): Required<GitopsBenchOptions> {
  return {
    pushes: checkInteger('pushes', options.pushes ?? 10, 1, 1000),
    lists: checkInteger('lists', options.lists ?? 20, 1, 1000),
    intervalMs: checkInteger('intervalMs', options.intervalMs ?? LEAST_INTERVAL_MS, LEAST_INTERVAL_MS, 3_600_000),
    tmpDir: checkString('tmpDir', options.tmpDir ?? os.tmpdir()),
    progress: checkFunction('progress', options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`))),
  };
}

/** One push, timed from t0: the webhook's POST, or the push itself when polling. */
interface PushTiming {
  /** To the emulator logging the list's update. */
  readonly callMs: number;
  /** To the daemon logging the reconcile that applied it. */
  readonly appliedMs: number;
}

export interface GitopsResult {
  readonly webhook: readonly PushTiming[];
  readonly polling: readonly PushTiming[];
  readonly intervalMs: number;
}

/** The headers GitHub sends with a push: the event, a delivery id of its own, and the HMAC of the raw body. */
export function githubPushHeaders(secret: string, body: string, delivery: string = randomUUID()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-event': 'push',
    'x-github-delivery': delivery,
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
}

/** Median, 95th percentile (nearest rank) and maximum of `values`, none empty. */
export function summarize(values: readonly number[]): { readonly median: number; readonly p95: number; readonly max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, p95: sorted[Math.ceil(0.95 * sorted.length) - 1], max: sorted[sorted.length - 1] };
}

/**
 * The config: a gateway list per description. A push changes one description, which is one update
 * (operation 9); a list's items cannot be changed in place, so changing them would only be blocked.
 */
function listsYaml(descriptions: readonly string[]): string {
  return descriptions
    .map(
      (description, i) =>
        `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: list-${i}\n  account: ${ACCOUNT}\nspec:\n  name: List ${i}\n` +
        `  description: ${description}\n  type: DOMAIN\n  items:\n    - value: list-${i}.example.net\n`,
    )
    .join('---\n');
}

/** A bare repository and a clone to commit from, with the system git and none of the machine's git config. */
function makeRemote(dir: string): { url: string; push: (yaml: string, message: string) => void } {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'edgesync bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'edgesync bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  };
  const bare = path.join(dir, 'remote.git');
  const work = path.join(dir, 'author');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
  fs.mkdirSync(bare);
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  fs.mkdirSync(work);
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'remote', 'add', 'origin', bare);
  return {
    url: `file://${bare}`,
    push(yaml, message) {
      fs.writeFileSync(path.join(work, 'lists.yaml'), yaml);
      git(work, 'add', 'lists.yaml');
      git(work, 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    },
  };
}

const isReconciled = (l: LogLine) => l.msg.startsWith('reconciled');

export async function runGitopsBench(options: GitopsBenchOptions = {}): Promise<GitopsResult> {
  const { pushes, lists, intervalMs, tmpDir, progress: say } = checkGitopsBenchOptions(options);
  const dir = fs.mkdtempSync(path.join(tmpDir, 'edgesync-gitops-bench-'));
  const token = randomBytes(16).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const secretFile = path.join(dir, 'webhook-secret');
  fs.writeFileSync(secretFile, secret, { mode: 0o600 });
  let emulator: EmulatorProcess | undefined;
  let daemon: WatchProcess | undefined;
  try {
    const remote = makeRemote(dir);
    const descriptions = Array.from({ length: lists }, (_, i) => `List ${i} as first pushed`);
    remote.push(listsYaml(descriptions), 'first');
    emulator = await startEmulatorProcess(token);
    const env = { ...process.env, EDGESYNC_API_TOKEN: token, EDGESYNC_BASE_URL: emulator.url, LOG_LEVEL: 'info' };
    // One state for both daemons: the polling one starts where the webhook one stopped, with the same clone.
    const common = ['--git', remote.url, '--ref', 'main', '--state', path.join(dir, 'state', 'state.db')];

    /** Pushes a change to one list, starts the clock with `start`, and times the list's update and its reconcile. */
    const timePush = async (d: WatchProcess, label: string, k: number, start: () => Promise<number>, timeoutMs: number): Promise<PushTiming> => {
      const marker = `${label} push ${k}`;
      await emulator!.clearRequests();
      const from = d.seen();
      descriptions[k % lists] = marker;
      remote.push(listsYaml(descriptions), marker);
      const t0 = await start();
      const applied = await d.line(`the reconcile of ${marker}`, from, (l) => isReconciled(l) && Number(l.actions) > 0, timeoutMs);
      // The log holds whole records (time, method, body); the helper types only the fields it reads.
      const calls = (await emulator!.requestLog()) as readonly RecordedRequest[];
      const call = calls.find((c) => c.method === 'PUT' && (c.body as { description?: unknown } | undefined)?.description === marker);
      if (!call) throw new Error(`the emulator logged no update of list ${k % lists} for ${marker}`);
      const timing = { callMs: Date.parse(call.time) - t0, appliedMs: applied.time - t0 };
      say(`gitops: ${marker}: first call ${seconds(timing.callMs)}, applied ${seconds(timing.appliedMs)}`);
      return timing;
    };

    // Webhook: a poll interval too long to matter, so only the POST can start the fetch.
    daemon = startWatchProcess([...common, '--interval', '1h', '--webhook-secret-file', secretFile], env);
    const listening = await daemon.line('the endpoint listening', 0, (l) => l.msg.startsWith('endpoint listening'), 60_000);
    await daemon.line('the first reconcile', 0, isReconciled, 120_000);
    const hook = `${String(listening.url)}/hooks/git`;
    const webhook: PushTiming[] = [];
    for (let k = 1; k <= pushes; k++) {
      webhook.push(
        await timePush(
          daemon,
          'webhook',
          k,
          async () => {
            const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'example/edge-config' } });
            const t0 = Date.now();
            const res = await fetch(hook, { method: 'POST', headers: githubPushHeaders(secret, body), body });
            if (res.status !== 202) throw new Error(`POST /hooks/git answered ${res.status}: ${await res.text()}`);
            return t0;
          },
          60_000,
        ),
      );
    }
    await daemon.stop();

    // Polling: no webhook; each push at a random moment of the interval.
    daemon = startWatchProcess([...common, '--interval', `${intervalMs / 1000}s`], env);
    await daemon.line('the first reconcile after the restart', 0, isReconciled, 120_000);
    const polling: PushTiming[] = [];
    for (let k = 1; k <= pushes; k++) {
      await new Promise((r) => setTimeout(r, Math.random() * intervalMs));
      polling.push(await timePush(daemon, 'polling', k, async () => Date.now(), 2 * intervalMs + 60_000));
    }
    return { webhook, polling, intervalMs };
  } finally {
    await daemon?.stop();
    await emulator?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function renderGitopsTable({ webhook, polling, intervalMs }: GitopsResult): string {
  const every = `polling every ${seconds(intervalMs)}`;
  const rows: [string, string, readonly number[]][] = [
    ['webhook', 'webhook received → first call sent', webhook.map((t) => t.callMs)],
    ['webhook', 'webhook received → applied (reconcile done)', webhook.map((t) => t.appliedMs)],
    [every, 'commit pushed → first call sent', polling.map((t) => t.callMs)],
    [every, 'commit pushed → applied (reconcile done)', polling.map((t) => t.appliedMs)],
  ];
  const lines = ['| path | from → to | pushes | median | p95 | max |', '|---|---|---:|---:|---:|---:|'];
  for (const [via, span, values] of rows) {
    const s = summarize(values);
    lines.push(`| ${via} | ${span} | ${values.length} | ${seconds(s.median)} | ${seconds(s.p95)} | ${seconds(s.max)} |`);
  }
  return lines.join('\n');
}

export function renderGitopsGoal({ webhook, polling, intervalMs }: GitopsResult): string[] {
  const calls = summarize(webhook.map((t) => t.callMs));
  const mean = polling.reduce((sum, t) => sum + t.appliedMs, 0) / polling.length;
  const longest = Math.max(...polling.map((t) => t.appliedMs));
  return [
    `Goal: every push webhook's first call within ${seconds(WEBHOOK_GOAL_MS)} of the webhook (${webhook.length} pushes, median ${seconds(calls.median)}, the longest ${seconds(calls.max)}): ${verdict(calls.max < WEBHOOK_GOAL_MS)}`,
    `Polling every ${seconds(intervalMs)}: a push applied after ${seconds(mean)} on average (half the interval is ${seconds(intervalMs / 2)}), the longest ${seconds(longest)} (the interval plus the fetch and the run bound it).`,
  ];
}
