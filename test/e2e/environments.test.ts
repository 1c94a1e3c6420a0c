// --env staging against the emulator: an overlay patches a list's description, adds a list and
// removes the AI run; the plans point at the overlay, the state is the environment's own (the state
// commands reach it, a saved plan keeps to it), and an overlay's mistake is refused at its file and line.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, cli, emulator, workspace, type Workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

const TESTERS = `GatewayList[account=${ACCOUNT}]/staging-testers`;

function staging(ws: Workspace): void {
  const dir = ws.file('environments/staging');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'lists.yaml'),
    `kind: GatewayList
metadata:
  name: blocked-domains
spec:
  description: Blocked in staging
---
apiVersion: edgesync/v1
kind: GatewayList
metadata:
  name: staging-testers
  account: ${ACCOUNT}
spec:
  name: Staging testers
  type: IP
  items:
    - value: 192.0.2.10
`,
  );
  fs.writeFileSync(path.join(dir, 'ai.yaml'), 'kind: AiRun\nmetadata:\n  name: release-summary\n$delete: true\n');
}

/** The description a create sends. */
const description = (a: JsonAction) => a.diff.find((d) => d.path === 'description')?.after;

interface JsonAction {
  readonly resource: string;
  readonly diff: readonly { readonly path: string; readonly after?: unknown }[];
  readonly source: { readonly file: string; readonly line: number; readonly overlay?: { readonly file: string; readonly line: number } } | null;
}

describe('--env staging', () => {
  it("plans the base with the overlay's changes, naming the overlay as each change's source", async () => {
    const ws = workspace();
    staging(ws);
    const r = await cli(['plan', '--config', 'root', '--env', 'staging', '--json'], { cwd: ws.dir });
    expect(r.code, r.stderr).toBe(0);
    const actions = JSON.parse(r.stdout).actions as JsonAction[];
    const list = actions.find((a) => a.resource === RESOURCES.GatewayList.key)!;
    expect(description(list)).toBe('Blocked in staging');
    expect(list.source).toEqual({ file: 'root/zero-trust/list.yaml', line: 1, col: 1, overlay: { file: 'root/environments/staging/lists.yaml', line: 1, col: 1 } });
    expect(actions.find((a) => a.resource === TESTERS)?.source).toEqual({ file: 'root/environments/staging/lists.yaml', line: 7, col: 1 });
    expect(actions.map((a) => a.resource).filter((k) => k.startsWith('AiRun'))).toEqual([]);
  });

  it("shows the base document's place and the overlay's beside the change in the text plan", async () => {
    const ws = workspace();
    staging(ws);
    const r = await cli(['plan', '--config', 'root', '--env', 'staging'], { cwd: ws.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`+ ${RESOURCES.GatewayList.key}  create (POST createList) (root/zero-trust/list.yaml:1, overlay root/environments/staging/lists.yaml:1)`);
    expect(r.stdout).toMatch(new RegExp(`^\\+ ${TESTERS.replace(/[[\]]/g, '\\$&')}  create \\(POST createList\\)$`, 'm'));
  });

  it('applies a saved plan only under the environment it was made for, naming both when refused', async () => {
    const emu = await emulator();
    const ws = workspace();
    staging(ws);
    fs.mkdirSync(ws.file('environments/qa'));
    const remote = ['--config', 'root', '--secrets', ws.secrets, '--base-url', emu.url];
    const saved = await cli(['plan', '--config', 'root', '--env', 'staging', '--out', 'staging.json'], { cwd: ws.dir });
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(ws.dir, 'staging.json'), 'utf8')).made_from.environment).toBe('staging');
    const none = await cli(['apply', 'staging.json', ...remote], { cwd: ws.dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'staging.json was made for the environment staging (--env staging), and this apply names none: apply it with --env staging, or make the plan again for this one',
    );
    const qa = await cli(['apply', 'staging.json', ...remote], { cwd: ws.dir, env: { EDGESYNC_ENV: 'qa' } });
    expect(qa.code).toBe(1);
    expect(qa.stderr).toContain('staging.json was made for the environment staging (--env staging), and this apply is for qa (EDGESYNC_ENV=qa)');
    expect(emu.state().lists).toEqual([]);
    const applied = await cli(['apply', 'staging.json', ...remote, '--env', 'staging'], { cwd: ws.dir });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(
      emu
        .state()
        .lists.map((l) => l.name)
        .sort(),
    ).toEqual(['Blocked domains', 'Staging testers']);
  });

  it("applies into the environment's own state, leaving the base's untouched", async () => {
    const emu = await emulator();
    const ws = workspace();
    staging(ws);
    const remote = ['--config', 'root', '--secrets', ws.secrets, '--base-url', emu.url];
    const applied = await cli(['apply', ...remote, '--env', 'staging'], { cwd: ws.dir });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(emu.state().lists.map((l) => [l.name, l.description])).toEqual(
      expect.arrayContaining([
        ['Blocked domains', 'Blocked in staging'],
        ['Staging testers', undefined],
      ]),
    );
    expect(fs.existsSync(path.join(ws.dir, '.edgesync', 'environments', 'staging', 'state.db'))).toBe(true);
    expect(fs.existsSync(path.join(ws.dir, '.edgesync', 'state.db'))).toBe(false);
    // The variable names the environment as the flag does: nothing left to send.
    const again = await cli(['apply', ...remote], { cwd: ws.dir, env: { EDGESYNC_ENV: 'staging' } });
    expect(again.stdout).toMatch(/^No changes\. \d+ resources up to date\./m);
    // The state commands reach the same state, by flag before or after the subcommand, or by the variable.
    for (const [args, env] of [
      [['state', 'list', '--env', 'staging', '--json'], {}],
      [['state', '--env', 'staging', 'list', '--json'], {}],
      [['state', 'list', '--json'], { EDGESYNC_ENV: 'staging' }],
    ] as const) {
      const listed = await cli([...args], { cwd: ws.dir, env });
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { key: string }[]).map((v) => v.key)).toContain(TESTERS);
    }
    const shown = await cli(['state', 'show', TESTERS, '--env', 'staging'], { cwd: ws.dir });
    expect(shown.code, shown.stderr).toBe(0);
    // A list only the overlay describes is still described in staging: forgetting it is refused there.
    const forget = await cli(['state', 'forget', TESTERS, '--config', 'root', '--env', 'staging'], { cwd: ws.dir });
    expect(forget.code).toBe(1);
    expect(forget.stderr).toContain(`${TESTERS} is still described by the config (root/environments/staging/lists.yaml:7:1)`);
    expect((await cli(['state', 'list'], { cwd: ws.dir })).stdout).toBe('No resources in state .edgesync/state.db.\n');
    // The base, planned against its own (empty) state, creates the list with its own description.
    const base = await cli(['plan', '--config', 'root', '--json'], { cwd: ws.dir });
    const list = (JSON.parse(base.stdout).actions as JsonAction[]).find((a) => a.resource === RESOURCES.GatewayList.key)!;
    expect(description(list)).toBe('Domains nobody should reach');
    expect(list.source?.overlay).toBeUndefined();
  });

  it("refuses an overlay's invalid value at the overlay's file and line, an environment that is not there, and --env on import", async () => {
    const ws = workspace();
    staging(ws);
    fs.writeFileSync(ws.file('environments/staging/location.yaml'), 'kind: GatewayLocation\nmetadata:\n  name: head-office\nspec:\n  client_default: "yes"\n');
    const r = await cli(['validate', '--config', 'root', '--env', 'staging'], { cwd: ws.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('root/environments/staging/location.yaml:5:19  spec.client_default  expected true or false, got "yes"\n1 error in 1 file\n');
    const missing = await cli(['validate', '--config', 'root', '--env', 'qa'], { cwd: ws.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('root/environments/qa:1:1  --env qa: no folder environments/qa/ under the config root; the environments there: staging');
    // import writes documents of the root into the root's state: it has no environment to take.
    const imported = await cli(['import', '--env', 'staging', '--out', 'imported', '--account', ACCOUNT], { cwd: ws.dir });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain("unknown option '--env'");
  });
});
