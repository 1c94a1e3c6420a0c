// KV at the command line: a sync killed half-way resumes with the chunks not yet acknowledged,
// a no-op re-sync sends nothing, and a 1% change sends exactly the changed keys.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, benchKey, isChanged, writeKvDocument, writePairsFile } from '../../bench/generate.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { cli, emulator, startCli } from './harness.js';

const PAIRS = 30_000;
const RESOURCE = `KvPairs[account=${BENCH_ACCOUNT},namespace=${BENCH_NAMESPACE}]/bench`;

/** Keys of every bulk write that passes through, per call, tagged with the run that sent it. */
interface Recorder {
  readonly url: string;
  readonly calls: { readonly run: number; readonly keys: string[] }[];
  /** The run new connections belong to; a killed run's late bytes still count as its own. */
  run: number;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A pass-through proxy in front of the emulator: its request log keeps no KV bodies, this does. */
async function recorder(emu: RunningEmulator): Promise<Recorder> {
  const runs = new WeakMap<Socket, number>();
  const rec: Recorder = { url: '', calls: [], run: 1 };
  const server = http.createServer((req, res) => {
    const run = runs.get(req.socket) ?? rec.run;
    const chunks: Buffer[] = [];
    req.on('error', () => res.destroy());
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.endsWith('/bulk')) rec.calls.push({ run, keys: (JSON.parse(body.toString('utf8')) as { key: string }[]).map((p) => p.key) });
      // A proxy names the server it forwards to, as a reverse proxy does by default.
      const upstream = http.request(emu.origin + req.url, { method: req.method, headers: { ...req.headers, host: new URL(emu.origin).host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  server.on('connection', (socket: Socket) => runs.set(socket, rec.run));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return Object.assign(rec, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4` });
}

const callsOf = (rec: Recorder, run: number): string[][] => rec.calls.filter((c) => c.run === run).map((c) => c.keys);

/** A config root with PAIRS generated pairs, and the state file beside it. */
function workspace(): { root: string; state: string; args: (url: string) => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-kv-resume-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'config');
  fs.mkdirSync(root);
  writeKvDocument(root);
  writePairsFile(root, { pairs: PAIRS });
  const state = path.join(dir, 'state', 'state.db');
  return { root, state, args: (url) => ['apply', '--auto-approve', '--config', root, '--state', state, '--base-url', url] };
}

const allKeys = (): string[] => Array.from({ length: PAIRS }, (_, i) => benchKey(i, PAIRS));

async function acknowledgedKeys(state: string): Promise<Set<string>> {
  const store = await openStateStore({ file: state, readOnly: true });
  try {
    return new Set((await (await store.snapshot()).kvKeys(RESOURCE)).keys());
  } finally {
    await store.close();
  }
}

/** The values pairs.json holds now, by key. */
function fileValues(root: string): Map<string, string> {
  const pairs = JSON.parse(fs.readFileSync(path.join(root, 'pairs.json'), 'utf8')) as { key: string; value: string }[];
  return new Map(pairs.map((p) => [p.key, p.value]));
}

function expectEmulatorHolds(emu: RunningEmulator, values: ReadonlyMap<string, string>): void {
  const stored = emu.kv(BENCH_ACCOUNT, BENCH_NAMESPACE);
  expect(stored.size).toBe(values.size);
  const wrong = [...values].filter(([key, value]) => stored.get(key)?.value.toString('utf8') !== value).map(([key]) => key);
  expect(wrong).toEqual([]);
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a KV sync through the command line', () => {
  it('resumes after a kill with only the chunks not acknowledged, and sends no acknowledged key again', async () => {
    // Latency keeps each chunk in flight long enough to kill the process between two of them.
    const emu = await emulator({ latencyMs: 300 });
    const proxy = await recorder(emu);
    const ws = workspace();
    const first = startCli([...ws.args(proxy.url), '--concurrency', '1']);
    // One call at a time: once a second chunk is answered, the first one's keys are in state.
    await until(() => emu.requests().filter((r) => r.operation === 10 && r.status === 200).length >= 2, 'two chunks answered');
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');

    const acknowledged = await acknowledgedKeys(ws.state);
    expect(acknowledged.size).toBeGreaterThanOrEqual(10_000);
    expect(acknowledged.size).toBeLessThan(PAIRS);
    expect(callsOf(proxy, 1).length).toBeGreaterThanOrEqual(2);
    proxy.run = 2;

    const second = await cli(ws.args(proxy.url));
    expect(second.code, second.stderr).toBe(0);
    const resent = callsOf(proxy, 2).flat();
    expect(resent.filter((key) => acknowledged.has(key))).toEqual([]);
    expect(new Set(resent).size).toBe(resent.length);
    expect(resent.sort()).toEqual(allKeys().filter((key) => !acknowledged.has(key)));
    expect(callsOf(proxy, 2)).toHaveLength(Math.ceil((PAIRS - acknowledged.size) / 10_000));
    expectEmulatorHolds(emu, fileValues(ws.root));
    expect((await acknowledgedKeys(ws.state)).size).toBe(PAIRS);
  });

  it('sends no request at all when nothing changed', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await cli(ws.args(emu.url))).code).toBe(0);
    emu.clearRequests();
    const again = await cli(ws.args(emu.url));
    expect(again.code, again.stderr).toBe(0);
    expect(emu.requests()).toEqual([]);
    expectEmulatorHolds(emu, fileValues(ws.root));
  });

  it('sends exactly the changed keys, in one request, when 1% of the values change', async () => {
    const emu = await emulator();
    const proxy = await recorder(emu);
    const ws = workspace();
    expect((await cli(ws.args(proxy.url))).code).toBe(0);
    proxy.run = 2;
    writePairsFile(ws.root, { pairs: PAIRS, changed: 0.01 });

    const resync = await cli(ws.args(proxy.url));
    expect(resync.code, resync.stderr).toBe(0);
    const changed = allKeys().filter((_, i) => isChanged(i, PAIRS, 0.01));
    expect(changed).toHaveLength(PAIRS / 100);
    expect(callsOf(proxy, 2)).toEqual([changed]);
    expectEmulatorHolds(emu, fileValues(ws.root));
  });
});
