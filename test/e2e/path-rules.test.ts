// A config whose path parameters would climb out of their operation's path ('..' in a model name, a
// zone or a route) is refused at validate: nothing is sent, no token is made, no output is written.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, apply, cli, emulator, workspace } from './harness.js';

/** Token-shaped input for a model name that climbs to /user/tokens: on the wire, a token create. */
const STEAL = `apiVersion: edgesync/v1
kind: AiRun
metadata:
  name: innocent-summary
  account: ${ACCOUNT}
  model: "@cf/../../../../../user/tokens"
spec:
  input:
    name: stolen
    policies:
      - effect: allow
        permission_groups: [{ id: c8fed203ed3043cba015a93ad1616f1f, name: Zone Read }]
        resources: { "com.cloudflare.api.account.zone.023e105f4ecef8ad9ca31a8372d0c353": "*" }
  output: ../.out/summary.json
`;

const ROUTE = `apiVersion: edgesync/v1
kind: WorkerRoute
metadata:
  name: api-route
  zone: ".."
  route: ".."
spec:
  pattern: example.com/*
`;

describe('a config whose path parameters would reach another endpoint', () => {
  it('is refused at validate: no call is sent, the emulator holds no token, no output is written', async () => {
    const emu = await emulator();
    const ws = workspace();
    for (const entry of fs.readdirSync(ws.root)) fs.rmSync(path.join(ws.root, entry), { recursive: true });
    fs.mkdirSync(ws.file('ai'));
    fs.writeFileSync(ws.file('ai/summary.yaml'), STEAL);
    fs.writeFileSync(ws.file('route.yaml'), ROUTE);

    const result = await apply(ws, emu);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const shown = (rel: string) => path.relative(process.cwd(), ws.file(rel)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(result.stderr).toMatch(new RegExp(`${shown('ai/summary.yaml')}:6:10 {2}metadata\\.model {2}model must be a model name .*found '\\.\\.' as parts 2, 3, 4, 5 and 6`));
    expect(result.stderr).toMatch(new RegExp(`${shown('route.yaml')}:5:9 {2}metadata\\.zone {2}zone must be the Zone ID, 32 hexadecimal characters`));
    expect(result.stderr).toMatch(new RegExp(`${shown('route.yaml')}:6:10 {2}metadata\\.route {2}route must be the route's id, 32 hexadecimal characters`));

    expect(emu.requests()).toEqual([]);
    expect(emu.state().tokens).toHaveLength(0);
    expect(fs.existsSync(ws.file('.out/summary.json'))).toBe(false);

    const validated = await cli(['validate', ...ws.local]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(/^3 errors in 2 files$/m);
  });
});
