// The Host a loopback emulator answers: its inspection routes need no token, so a web page reaching
// it through DNS rebinding (its own name resolved to 127.0.0.1) must not read or set anything.

import { describe, expect, it } from 'vitest';
import { requestWithHost, statusWithoutHost } from '../helpers/host-header.js';
import { harness, startToken } from './helpers.js';

const ATTACKER = 'attacker.example';

describe('a loopback emulator reached under another name', () => {
  it('answers 421 with one line saying how to allow it, instead of its state, KV values or request log', async () => {
    const { call, emu } = await harness();
    await call('PUT', '/accounts/a/storage/kv/namespaces/n/bulk', [{ key: 'k', value: 'secret-kv-value' }]);
    for (const path of ['/__emulator/state', '/__emulator/kv/a/n?values=1', '/__emulator/requests']) {
      const answer = await requestWithHost(emu.origin + path, `${ATTACKER}:${emu.port}`);
      expect(answer.status).toBe(421);
      expect(answer.contentType).toBe('text/plain; charset=utf-8');
      expect(answer.body).toMatch(/^Misdirected request: .*--allowed-host NAME.*\n$/);
      expect(answer.body.trimEnd()).not.toContain('\n');
      expect(answer.body).not.toContain('secret-kv-value');
    }
  });

  it('refuses to set faults or clear the request log for it', async () => {
    const { call, emu } = await harness();
    await call('PATCH', '/user', { country: 'NL' });
    const faults = await requestWithHost(`${emu.origin}/__emulator/faults`, ATTACKER, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failRate: 1 }),
    });
    expect(faults.status).toBe(421);
    expect((await requestWithHost(`${emu.origin}/__emulator/requests`, ATTACKER, { method: 'DELETE' })).status).toBe(421);
    expect((await call('PATCH', '/user', { country: 'BE' })).status).toBe(200);
    expect(emu.requests().filter((r) => r.path === '/client/v4/user')).toHaveLength(2);
  });

  it('answers an operation of the interface under another name 421 too, even with a valid token', async () => {
    const { emu } = await harness();
    const answer = await requestWithHost(`${emu.url}/user`, ATTACKER, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${startToken}`, 'content-type': 'application/json' },
      body: '{"country":"NL"}',
    });
    expect(answer.status).toBe(421);
    expect(emu.state().user.country).not.toBe('NL');
  });

  it('still answers 127.0.0.1, localhost and [::1] on its own port, and a request without Host', async () => {
    const { emu } = await harness();
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, `[::1]:${emu.port}`, 'localhost', '127.0.0.1']) {
      expect((await requestWithHost(`${emu.origin}/__emulator/state`, host)).status).toBe(200);
    }
    expect((await requestWithHost(`${emu.origin}/__emulator/state`, `127.0.0.1:${emu.port + 1}`)).status).toBe(421);
    expect(await statusWithoutHost(`${emu.origin}/__emulator/state`)).toBe(200);
  });

  it('answers a name given in allowedHosts (--allowed-host), as behind a reverse proxy', async () => {
    const { emu } = await harness({ allowedHosts: ['emulator.internal'] });
    expect((await requestWithHost(`${emu.origin}/__emulator/state`, 'emulator.internal:8080')).status).toBe(200);
    expect((await requestWithHost(`${emu.origin}/__emulator/state`, ATTACKER)).status).toBe(421);
  });
});

describe('an emulator on an address that is not loopback', () => {
  it('answers any Host, as before', async () => {
    const { emu } = await harness({ host: '0.0.0.0' });
    expect((await requestWithHost(`${emu.origin}/__emulator/state`, `${ATTACKER}:${emu.port}`)).status).toBe(200);
  });
});
