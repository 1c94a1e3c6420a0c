// An apply SIGKILLed while batches of creates are journaled, sent and answered together: no create
// is sent twice, nothing is recorded that was not answered, and what was in flight is listed uncertain.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { ACCOUNT, apply, cli, emulator, seeded, sleep, startCli, workspace, type Workspace } from './harness.js';

const LISTS = 40;
const LATENCY_MS = 150;
const RUNS = 4;

const listKey = (k: number) => `GatewayList[account=${ACCOUNT}]/list-${k}`;
const listName = (k: number) => `List ${k}`;

/** The fixture's gateway account and LISTS lists in one file: creates that can all go at once. */
function listsOnly(): Workspace {
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'zero-trust') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  for (const file of fs.readdirSync(ws.file('zero-trust'))) if (file !== 'gateway-account.yaml') fs.rmSync(ws.file(`zero-trust/${file}`));
  const docs = Array.from(
    { length: LISTS },
    (_, k) =>
      `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: list-${k}\n  account: ${ACCOUNT}\nspec:\n  name: ${listName(k)}\n  type: DOMAIN\n  items:\n    - value: host-${k}.example.net\n`,
  );
  fs.writeFileSync(ws.file('zero-trust/lists.yaml'), docs.join('---\n'));
  return ws;
}

/** Per list: how many creates the emulator received for it, and the ids of the objects it holds. */
function seenByEmulator(emu: RunningEmulator) {
  const posts = new Map<string, number>();
  for (const r of emu.requests()) {
    const name = (r.body as { name?: unknown } | undefined)?.name;
    if (r.method === 'POST' && r.path.endsWith('/gateway/lists') && typeof name === 'string') posts.set(name, (posts.get(name) ?? 0) + 1);
  }
  const objects = (k: number) =>
    emu
      .state()
      .lists.filter((o) => o.name === listName(k))
      .map((o) => o.id);
  return { posts: (k: number) => posts.get(listName(k)) ?? 0, objects };
}

/** The state as a restart finds it: each list's status and remote id, and the open intents. */
async function stateAfter(ws: Workspace) {
  const store = await openStateStore({ file: ws.state, readOnly: true });
  try {
    const snapshot = await store.snapshot();
    return { resources: snapshot.resources, intents: new Set(snapshot.intents.keys()) };
  } finally {
    await store.close();
  }
}

/** Checks what the emulator got against what the state says; returns the keys left uncertain. */
async function expectNoDuplicateNorUnanswered(ws: Workspace, emu: RunningEmulator, where: string): Promise<Set<string>> {
  const { resources, intents } = await stateAfter(ws);
  const seen = seenByEmulator(emu);
  for (let k = 0; k < LISTS; k++) {
    const key = listKey(k);
    const at = `${where}: list-${k}`;
    expect(seen.posts(k), `${at}: creates sent`).toBeLessThanOrEqual(1);
    const recorded = resources.get(key);
    if (intents.has(key)) {
      expect(recorded?.status, at).toBe('uncertain');
      expect(seen.objects(k).length, at).toBeLessThanOrEqual(1);
    } else if (recorded?.status === 'applied') {
      // Its id came only from the answer: recorded means answered.
      expect(seen.objects(k), at).toEqual([recorded.remoteId]);
    } else {
      // Never journaled (or its journal entry never committed): never sent.
      expect(recorded, at).toBeUndefined();
      expect(seen.posts(k), at).toBe(0);
    }
  }
  return intents;
}

/** Whether `key` has an intent committed in the state (none before the state exists). */
async function journaled(ws: Workspace, key: string): Promise<boolean> {
  try {
    return (await stateAfter(ws)).intents.has(key);
  } catch {
    return false;
  }
}

/**
 * A TCP relay in front of the emulator that looks at each create as it arrives: its intent must
 * already be in the state (read by another connection: committed), and the `killAt`-th one is held
 * back while the apply is SIGKILLed: sent, never received.
 */
async function relay(emu: RunningEmulator, ws: Workspace, killAt: number, kill: () => void) {
  const target = new URL(emu.url);
  const arrived: number[] = [];
  const unjournaled: string[] = [];
  let held: number | undefined;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    let seen = '';
    // Each chunk is looked at, its intents read from the state, before it is passed on, in order.
    let passed = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      passed = passed.then(async () => {
        seen += chunk.toString('latin1');
        const names = [...seen.matchAll(/"name":"List (\d+)"/g)].map((m) => Number(m[1]));
        seen = seen.slice(seen.lastIndexOf('"name":"List ') + 1);
        for (const k of names) {
          arrived.push(k);
          if (arrived.length === killAt) held = k;
          if (!(await journaled(ws, listKey(k)))) unjournaled.push(listKey(k));
        }
        if (held !== undefined && names.includes(held)) {
          kill();
          return;
        }
        upstream.write(chunk);
      });
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}${target.pathname}`;
  return { url, arrived, unjournaled, held: () => held, close: () => new Promise((r) => server.close(r)) };
}

async function killOnce(run: number, killAt: number): Promise<void> {
  // The relay passes bytes as they are, Host naming its own port: the emulator is told to take it.
  const emu = await emulator({ latencyMs: LATENCY_MS, seed: run, allowedHosts: ['127.0.0.1'] });
  const ws = listsOnly();
  let child: ReturnType<typeof startCli> | undefined;
  const proxy = await relay(emu, ws, killAt, () => child?.child.kill('SIGKILL'));
  try {
    child = startCli(['apply', ...ws.local, '--secrets', ws.secrets, '--base-url', proxy.url, '--concurrency', '8']);
    await child.done;
  } finally {
    await proxy.close();
  }
  // Creates already at the emulator finish there: let them land before looking.
  await sleep(LATENCY_MS * 2);
  const where = `run ${run} (killed as create ${killAt} arrived)`;
  expect(proxy.unjournaled, `${where}: creates that arrived before their intent was committed`).toEqual([]);
  expect(proxy.held(), where).toBeDefined();
  const uncertain = await expectNoDuplicateNorUnanswered(ws, emu, where);
  // Sent and never received: it stays uncertain (the relay kept it from the emulator).
  expect(uncertain, where).toContain(listKey(proxy.held()!));
  expect(seenByEmulator(emu).posts(proxy.held()!), where).toBe(0);

  // The restart lists what was in flight as uncertain, and sends none of it again.
  const planned = await cli(['plan', ...ws.local, '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  const plan = JSON.parse(planned.stdout) as { uncertain: { resource: string }[] };
  expect(new Set(plan.uncertain.map((u) => u.resource)), where).toEqual(uncertain);
  emu.setFaults({ latencyMs: 0 });
  await apply(ws, emu);
  const again = await expectNoDuplicateNorUnanswered(ws, emu, `${where}, then applied again`);
  expect(again, where).toEqual(uncertain);
  const { resources } = await stateAfter(ws);
  for (let k = 0; k < LISTS; k++) if (!uncertain.has(listKey(k))) expect(resources.get(listKey(k))?.status, `${where}: list-${k}`).toBe('applied');
}

describe('killing apply during group commits', () => {
  it('never sends a create twice, records nothing unanswered, and lists what was in flight as uncertain', { timeout: 180_000 }, async () => {
    const random = seeded(20261123);
    // Killed as the 2nd to the 30th create arrives: in the first batch, or with answers being recorded.
    const moments = Array.from({ length: RUNS }, () => 2 + Math.floor(random() * 29));
    // Two runs at a time, each with its own emulator and state: the machine has two cores.
    for (let run = 0; run < RUNS; run += 2) await Promise.all([killOnce(run, moments[run]), killOnce(run + 1, moments[run + 1])]);
  });
});
