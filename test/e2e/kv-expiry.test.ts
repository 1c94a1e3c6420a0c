// A KV key expires remotely when its ttl or expiration passes; state remembers when, so the next
// plan shows it expired and sends it again, in one process with one clock for client and server.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { folderSource } from '../../src/config/source.js';
import { createEngine } from '../../src/engine/index.js';
import '../../src/kinds/index.js';
import { renderText } from '../../src/plan/index.js';
import { openStateStore } from '../../src/state/index.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { NAMESPACE } from './fixture.js';
import { ACCOUNT, emulator, TOKEN, workspace } from './harness.js';

describe('KV keys that expire', () => {
  it('are shown as expired once their ttl has passed, and sent again while the config has them', async () => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const clock: Clock = { now: () => now, sleep: systemClock.sleep };
    const emu = await emulator({ now: clock.now });
    const ws = workspace();
    for (const entry of fs.readdirSync(ws.root)) if (entry !== 'kv') fs.rmSync(path.join(ws.root, entry), { recursive: true });
    const yaml = ws.file('kv/kv.yaml');
    fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace('      expiration_ttl: 604800', '      expiration_ttl: 60'));

    const store = await openStateStore({ file: ws.state, owner: 'e2e expiry', clock });
    try {
      const engine = createEngine({ source: folderSource(ws.root), store, client: createClient({ baseUrl: emu.url, token: TOKEN }), secretsDir: ws.secrets, clock });
      const loaded = await loadConfig({ root: ws.root, env: {}, ignore: [], now: clock.now });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      const { resources } = loaded;
      const first = await engine.apply(await engine.plan(resources), resources);
      expect(first.failed).toEqual([]);
      expect(emu.kv(ACCOUNT, NAMESPACE).has('banner')).toBe(true);

      now += 59_000;
      expect((await engine.plan(resources)).actions).toEqual([]);

      now += 2_000;
      expect(emu.kv(ACCOUNT, NAMESPACE).has('banner')).toBe(false);
      const plan = await engine.plan(resources);
      // One pair: the expired one (its body is read from the files when it is sent).
      expect(plan.actions.map((a) => a.size?.pairs)).toEqual([1]);
      expect(renderText(plan)).toContain('1 key expired remotely since written ("banner"): sent again, as the config still has them');

      const again = await engine.apply(plan, resources);
      expect(again.failed).toEqual([]);
      expect(emu.kv(ACCOUNT, NAMESPACE).get('banner')?.expiration).toBe(now / 1000 + 60);
      expect((await engine.plan(resources)).actions).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
