// The body of `edgesync apply`: load, lock the state, plan, confirm, execute, summarize.
// Kept apart from the command's registration so that its imports load only when it runs.

import path from 'node:path';
import readline from 'node:readline/promises';
import { createClient, resolveToken } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import { createLogger } from '../log.js';
import { planHasChanges, renderText, summarize } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { openStateStore } from '../state/index.js';
import { systemClock } from '../util/clock.js';
import {
  outputsDir, parseConcurrency, parseRateLimit, requireBaseUrl, secretsDir, type ExecOptions,
} from './common.js';
import { loadOrRefuse, ownPaths } from './load.js';
import { createProgress, type Progress } from './progress.js';
import { renderApplyResult } from './result.js';

export interface ApplyCliOptions extends ExecOptions {
  readonly autoApprove?: boolean;
  readonly verbose?: boolean;
}

async function confirm(): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question('Apply these changes? Only "yes" applies them: ');
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

function kvProgress(plan: Plan): Progress | undefined {
  const { kvChunks, kvPairs, kvBytes } = summarize(plan);
  if (!kvChunks) return undefined;
  return createProgress({ total: { pairs: kvPairs, bytes: kvBytes }, tty: process.stderr.isTTY === true, clock: systemClock, write: (s) => process.stderr.write(s) });
}

export async function runApply(opts: ApplyCliOptions): Promise<void> {
  const secrets = secretsDir(opts);
  const rateLimit = parseRateLimit(opts.rateLimit);
  const concurrency = parseConcurrency(opts.concurrency);
  const resources = await loadOrRefuse(opts);
  const client = createClient({ baseUrl: requireBaseUrl(opts), token: resolveToken({ env: process.env, tokenFile: opts.tokenFile }) });
  const store = openStateStore({ file: path.resolve(opts.state), owner: 'edgesync apply' });
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('stopped by signal'));
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const logger = createLogger({ level: opts.verbose ? 'debug' : 'warn' });
    let progress: Progress | undefined;
    const engine = createEngine({
      root: path.resolve(opts.config), store, client, secretsDir: secrets, outputsDir: outputsDir(opts), logger, concurrency, rateLimit,
      ignore: ownPaths(opts), signal: stop.signal,
      hooks: {
        onActionEnd: (action, status) => {
          if (status === 'succeeded' && action.size) progress?.advance(action.size.pairs, action.size.bytes);
        },
      },
    });
    const plan = engine.plan(resources);
    process.stdout.write(renderText(plan, { color: process.stdout.isTTY === true }) + '\n');
    if (!planHasChanges(plan)) return;
    const ask = process.stdin.isTTY === true && process.stdout.isTTY === true && !opts.autoApprove;
    if (ask && !(await confirm())) {
      process.stdout.write('Nothing applied.\n');
      return;
    }
    progress = kvProgress(plan);
    const result = await engine.apply(plan, resources);
    progress?.finish();
    process.stdout.write(renderApplyResult(result) + '\n');
    if (result.failed.length || result.uncertain.length || stop.signal.aborted) process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    store.close();
  }
}
