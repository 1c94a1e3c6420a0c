// The daemon over a config of many files: an edit reads and builds only its file; a file broken among
// them is reported at its file and line without reading the others, and the last good config stays.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startHarness, waitFor, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const settled = (x: Harness, n: number) => waitFor(`${n} reconciles`, () => x.daemon.status().runs >= n && !x.daemon.status().running, 30_000);
/** Waits until no run starts for a while (stray watcher events have come and gone); the runs so far. */
async function quiet(x: Harness): Promise<number> {
  for (;;) {
    const before = x.daemon.status().runs;
    await new Promise((r) => setTimeout(r, 600));
    if (x.daemon.status().runs === before && !x.daemon.status().running) return before;
  }
}
const LIST = (name: string) =>
  `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: ${name}\n  account: 0123456789abcdef0123456789abcdef\nspec:\n  name: ${name}\n  type: IP\n  description: first\n`;

it('reads only the edited file among a hundred, and keeps the last good config in force through a file broken among them', async () => {
  h = await startHarness();
  await settled(h, 1);
  const lists = path.join(h.root, 'lists');
  fs.mkdirSync(lists);
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(lists, `list-${String(i).padStart(3, '0')}.yaml`), LIST(`list-${i}`));
  await waitFor('the hundred lists applied', () => h!.daemon.status().lastRun?.succeeded === 100, 30_000);
  // Files written a moment ago are read again at each load (their stamps could miss a write in the
  // same tick): made an hour old, and read once more from scratch, as files edited long ago are.
  // Every file of the root, the harness's own too: one written less than 2 s before a load is read again at the next.
  const old = new Date(Date.now() - 3_600_000);
  for (const entry of fs.readdirSync(h.root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) fs.utimesSync(path.join(entry.parentPath, entry.name), old, old);
  }
  await quiet(h);
  h.daemon.reload();
  const runs = await quiet(h);
  const files = h.source.counts!.files;
  expect(h.source.counts).toMatchObject({ files, read: files, built: files });

  const edited = path.join(lists, 'list-042.yaml');
  h.emulator.clearRequests();
  fs.writeFileSync(edited, LIST('list-42').replace('description: first', 'description: second'));
  await settled(h, runs + 1);
  expect(h.source.counts).toMatchObject({ files, read: 1, built: 1 });
  expect(h.emulator.requests().map((r) => r.method)).toEqual(['PUT']);

  h.emulator.clearRequests();
  const inForce = h.daemon.status().digest;
  fs.writeFileSync(edited, LIST('list-42').replace('type: IP', 'type: [IP'));
  await settled(h, runs + 2);
  expect(h.source.counts!.read).toBe(1);
  const status = h.daemon.status();
  expect(status).toMatchObject({ configValid: false, lastRun: { result: 'invalid' } });
  // At the line of the "[" left open, not the line after it where the parser found out.
  expect(status.configErrors).toEqual([expect.objectContaining({ file: path.relative(process.cwd(), edited), line: 8 })]);
  expect(status.digest).toBe(inForce);
  expect(h.emulator.requests()).toHaveLength(0);
});
