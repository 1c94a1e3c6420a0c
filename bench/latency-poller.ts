// The latency part's prober, in a process of its own so the bench's own work (generating pairs) never delays a
// request: `node latency-poller.js URL INTERVAL_MS PATH…` asks each path every INTERVAL_MS until its stdin ends, then prints JSON.

import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** One path's answers: each request's time to its whole answer, and what went wrong. */
export interface PathSamples {
  readonly path: string;
  /** Milliseconds from the request sent to its answer read, in the order asked. */
  readonly ms: number[];
  /** Answers other than 200 or 503 (503 is /readyz's word before the first reconcile), and failed requests after the first answer. */
  readonly errors: number;
}

/** What the poller prints on its last stdout line. */
export interface PollerReport {
  readonly paths: readonly PathSamples[];
}

/** How long one request may take before it counts as an error and the next is asked. */
const REQUEST_TIMEOUT_MS = 60_000;

/** One GET on a fresh connection, as a liveness probe makes it: its status and time, or undefined when nothing answered. */
function get(url: string): Promise<{ status: number; ms: number } | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.once('error', () => resolve(undefined));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(undefined));
  });
}

/**
 * Asks `path` every `intervalMs` (the next as soon as an answer came later than that) until `done`. Before the
 * daemon first answers (it is starting), a refused connection is not a sample; after, a failure is an error.
 */
async function poll(base: string, path: string, intervalMs: number, done: () => boolean): Promise<PathSamples> {
  const ms: number[] = [];
  let errors = 0;
  let up = false;
  while (!done()) {
    const started = performance.now();
    const answer = await get(base + path);
    if (answer) {
      up = true;
      ms.push(Math.round(answer.ms * 10) / 10);
      if (answer.status !== 200 && answer.status !== 503) errors++;
    } else if (up) errors++;
    const wait = intervalMs - (performance.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return { path, ms, errors };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [base, interval, ...paths] = process.argv.slice(2);
  if (!base || !interval || paths.length === 0) throw new Error('usage: latency-poller.js URL INTERVAL_MS PATH…');
  let stopped = false;
  process.stdin.resume();
  process.stdin.once('end', () => (stopped = true));
  const done = () => stopped;
  const report: PollerReport = { paths: await Promise.all(paths.map((p) => poll(base, p, Number(interval), done))) };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}
