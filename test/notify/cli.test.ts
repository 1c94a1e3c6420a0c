import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { copyFixture, TOKEN, waitFor } from '../daemon/harness.js';
import { spawnWatch } from '../daemon/processes.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('edgesync watch --notify', () => {
  it('POSTs revision_applied after the first apply, then config_invalid with file:line after an invalid edit', async () => {
    const emu = await startEmulator({ port: 0, tokens: [TOKEN] });
    cleanup.push(() => emu.close());
    const r = await startReceiver();
    cleanup.push(() => r.close());
    const { dir, root } = copyFixture('small-root');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const child = spawnWatch(['--config', root, '--state', path.join(dir, 'state', 'state.db'), '--base-url', emu.url, '--notify', r.url], cleanup);
    type Body = { event: string; reason: string; resources: string[]; revision: string | null; host: string };
    const events = () => r.bodies as Body[];

    const applied = await waitFor('revision_applied', () => events().find((e) => e.event === 'revision_applied'), 15_000);
    expect(applied.resources.length).toBeGreaterThan(0);
    expect(applied.revision).toMatch(/^[0-9a-f]{16,}$/);

    const file = path.join(root, 'zero-trust', 'connectivity.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('icmp_proxy_enabled: true', 'icmp_proxy_enabled: "yes"'));
    const invalid = await waitFor('config_invalid', () => events().find((e) => e.event === 'config_invalid'), 15_000);
    expect(invalid.reason).toMatch(/connectivity\.yaml:7:\d+ {2}spec\.icmp_proxy_enabled/);
    expect(r.raw.join('\n')).not.toContain(TOKEN);

    child.kill('SIGTERM');
    expect((await child.exited).code, child.stderr()).toBe(0);
    expect(events().map((e) => e.event)).toEqual(['revision_applied', 'config_invalid']);
  });

  it('refuses a --notify URL that is not http, https or slack+https in one line, without its password, and exits 1', async () => {
    const { dir, root } = copyFixture('small-root');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const child = spawnWatch(
      ['--config', root, '--state', path.join(dir, 'state', 'state.db'), '--base-url', 'http://127.0.0.1:9/client/v4', '--notify', 'ftp://bot:hunter2@files.example/hook'],
      cleanup,
    );
    expect((await child.exited).code).toBe(1);
    expect(child.log.map((l) => l.msg)).toEqual(['Expected `--notify` to be an http://, https:// or slack+https:// URL, got `ftp://***@files.example/***`']);
    expect(child.stderr()).not.toContain('hunter2');
    expect(fs.existsSync(path.join(dir, 'state'))).toBe(false);
  });
});
