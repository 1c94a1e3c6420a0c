// Policy rules end to end, through the built command line against the emulator: a deny stops plan
// and apply before anything is sent (exit 3), a warn is shown and counted, validate refuses a config-only deny.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, cli, emulator, workspace, type Workspace } from './harness.js';
import { RESOURCES } from './fixture.js';

/** Writes a Policy document of these rules into the workspace's root. */
function policy(ws: Workspace, rules: string): void {
  fs.writeFileSync(ws.file('policies.yaml'), ['apiVersion: edgesync/v1', 'kind: Policy', 'metadata:', '  name: review', 'spec:', '  rules:', rules].join('\n'));
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('policies, end to end', () => {
  it('denies a plan whose action a rule refuses: plan and apply exit 3, and apply sends no write', async () => {
    const emu = await emulator();
    const ws = workspace();
    policy(
      ws,
      [
        '    - name: no-new-lists',
        '      expression: \'!(resource.kind == "GatewayList" && action.type == "create")\'',
        '      message: lists are created by the network team',
      ].join('\n'),
    );
    const planned = await cli(['plan', ...ws.local]);
    expect(planned.code).toBe(3);
    expect(planned.stdout).toContain(`! ${RESOURCES.GatewayList.key}  denied by Policy/review rule no-new-lists (`);
    expect(planned.stdout).toMatch(/policies\.yaml:8\)\n {4}lists are created by the network team\n/);
    expect(planned.stdout).toMatch(/, 1 denied by policy\.$/m);
    const mark = emu.requests().length;
    const applied = await apply(ws, emu, '--auto-approve');
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain('Denied by policy (Policy/review rule no-new-lists). Nothing was applied.');
    expect(
      emu
        .requests()
        .slice(mark)
        .filter((r) => WRITES.has(r.method)),
    ).toEqual([]);
  });

  it('shows and counts a warning, and applies the plan all the same', async () => {
    const emu = await emulator();
    const ws = workspace();
    policy(ws, ['    - name: small-changes', '      expression: plan.create <= 3', '      effect: warn', '      message: a large change, best applied in a quiet hour'].join('\n'));
    const planned = await cli(['plan', '--json', ...ws.local]);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    const json = JSON.parse(planned.stdout);
    expect(json.policy).toEqual([
      {
        policy: 'Policy/review',
        rule: 'small-changes',
        effect: 'warn',
        message: 'a large change, best applied in a quiet hour',
        source: { file: expect.stringContaining('policies.yaml'), line: 8, col: 19 },
        resource: null,
        action: null,
        error: null,
      },
    ]);
    const applied = await apply(ws, emu, '--auto-approve');
    expect(applied.stdout).toContain('! the plan  warning by Policy/review rule small-changes');
    expect(applied.stdout).toMatch(/1 policy warning\.$/m);
    expect(applied.code).toBe(0);
    expect(emu.requests().some((r) => WRITES.has(r.method))).toBe(true);
  });

  it('refuses at validate a config a config-only rule denies, at the resource and naming the rule', async () => {
    const ws = workspace();
    policy(
      ws,
      ['    - name: token-expiry', '      expression: resource.kind != "ApiToken" || has(resource.spec.no_such_field)', '      message: tokens need an expiry'].join('\n'),
    );
    const validated = await cli(['validate', ...ws.local]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(
      new RegExp(
        `user/token\\.yaml:\\d+:1 {2}${RESOURCES.ApiToken.key.replace(/[[\]/]/g, '\\$&')}: denied by Policy/review rule token-expiry \\(.*policies\\.yaml:8:19\\): tokens need an expiry`,
      ),
    );
  });

  it("lists a config-only warn rule's findings under validate --json's warnings, the config still valid", async () => {
    const ws = workspace();
    policy(
      ws,
      [
        '    - name: named-lists',
        '      expression: resource.kind != "GatewayList" || resource.name != "blocked-domains"',
        '      effect: warn',
        '      message: name lists by what they hold',
      ].join('\n'),
    );
    const validated = await cli(['validate', '--json', ...ws.local]);
    expect(validated.code).toBe(0);
    const json = JSON.parse(validated.stdout);
    expect(json).toMatchObject({ valid: true, errors: [] });
    expect(json.warnings).toEqual([
      {
        file: expect.stringMatching(/zero-trust\/list\.yaml$/),
        line: expect.any(Number),
        col: 1,
        path: '',
        message: expect.stringMatching(/^GatewayList\[.*\]\/blocked-domains: warning by Policy\/review rule named-lists \(.*policies\.yaml:8:19\): name lists by what they hold$/),
      },
    ]);
  });

  it('refuses at validate a rule that does not return a bool, at its expression', async () => {
    const ws = workspace();
    policy(ws, ['    - name: counted', '      expression: plan.create', '      message: never a bool'].join('\n'));
    const validated = await cli(['validate', ...ws.local]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(/policies\.yaml:8:19 {2}Policy\/review rule counted must return a bool: it returned double \d+, not a bool/);
  });

  it('validates the examples, their policy document included', async () => {
    const examples = path.resolve(import.meta.dirname, '../../examples');
    const validated = await cli(['validate', '--config', examples, '--state', path.join(workspace().dir, 'state.db')]);
    expect(validated.stderr).toBe('');
    expect(validated.stdout).toMatch(/^Policy +1$/m);
    expect(validated.code).toBe(0);
  });
});
