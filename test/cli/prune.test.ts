// `--prune` at the command line against the emulator: what the config dropped is deleted, once, and
// every guardrail refuses as the other thresholds do (exit 3, nothing sent), a protected one at plan.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, callsSince, cli, editDoc, fixtureApplied, openIntents, sleep, startCli, waitFor } from '../e2e/harness.js';
import { RESOURCES } from '../e2e/fixture.js';

const LIST = RESOURCES.GatewayList;
const TOKEN = RESOURCES.ApiToken;

describe('--prune', () => {
  it('plans the delete of a dropped list first, in red, with where it was defined, and apply deletes it once', async () => {
    const { emu, ws } = await fixtureApplied();
    fs.rmSync(ws.file(LIST.file));
    const off = await cli(['plan', ...ws.local]);
    expect(off.stdout).toContain(`- ${LIST.key}  orphaned (last defined at `);
    expect(off.stdout).toContain('not deleted, prune is off: `--prune` deletes it');

    const plan = await cli(['plan', ...ws.local, '--prune']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n')[0]).toMatch(/^- GatewayList\[.*\]\/blocked-domains {2}delete \(DELETE deleteList\) \(last defined at \S*zero-trust\/list\.yaml:1\)$/);
    expect(plan.stdout).toMatch(/Plan: 1 to delete; .*\d+ unchanged\.\n$/);

    const mark = emu.requests().length;
    const done = await apply(ws, emu, '--prune');
    expect(done.code, done.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => c.method)).toEqual(['DELETE']);
    const again = await cli(['plan', ...ws.local, '--prune']);
    expect(again.stdout).not.toContain(LIST.key);
    expect(again.stdout).toMatch(/^No changes\./);
  });

  it('applies exactly the deletes of a saved plan', async () => {
    const { emu, ws } = await fixtureApplied();
    fs.rmSync(ws.file(LIST.file));
    const saved = path.join(ws.dir, 'plan.json');
    expect((await cli(['plan', ...ws.local, '--prune', '--out', saved])).code).toBe(0);
    const json = JSON.parse(fs.readFileSync(saved, 'utf8'));
    expect(json.made_from.prune).toEqual({ prune: true, protect: [] });
    expect(json.actions.map((a: { id: string }) => a.id)).toEqual([`${LIST.key}#delete`]);
    const refused = await cli(['apply', saved, ...ws.remote(emu), '--prune']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--prune and --protect cannot be given with a saved plan');
    const mark = emu.requests().length;
    const done = await cli(['apply', saved, ...ws.remote(emu)]);
    expect(done.code, done.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => c.method)).toEqual(['DELETE']);
  });

  it('refuses over --max-deletes and --max-delete-share, sending nothing, and applies under --force', async () => {
    const { emu, ws } = await fixtureApplied();
    fs.rmSync(ws.file(LIST.file));
    fs.rmSync(ws.file(TOKEN.file));
    const mark = emu.requests().length;
    const share = await apply(ws, emu, '--prune');
    expect(share.code, share.stderr).toBe(3);
    expect(share.stderr).toMatch(/the plan deletes 2 of the \d+ resources in state \(\d+(\.\d)?%\), over the delete threshold of 10% \(--max-delete-share\)/);
    const count = await apply(ws, emu, '--prune', '--max-delete-share', '50', '--max-deletes', '1');
    expect(count.code).toBe(3);
    expect(count.stderr).toContain('the plan deletes 2 resources, over the limit of 1 (--max-deletes)');
    expect(callsSince(emu, mark)).toEqual([]);
    const forced = await apply(ws, emu, '--prune', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`- ${TOKEN.key}  delete (DELETE deleteToken)`);
    expect(forced.stdout).toMatch(/secret of ApiToken\/ci-deploy removed from /);
    expect(fs.readdirSync(ws.secrets)).toEqual([]);
  });

  it('refuses at plan to delete a protected resource whose document was removed, and keeps it under --protect', async () => {
    const { emu, ws } = await fixtureApplied();
    editDoc(ws, LIST.file, LIST.name, (doc) => doc.setIn(['metadata', 'protect'], true));
    expect((await apply(ws, emu)).code).toBe(0);
    fs.rmSync(ws.file(LIST.file));
    const plan = await cli(['plan', ...ws.local, '--prune']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /GatewayList\[.*\]\/blocked-domains is protected \(metadata\.protect\) and no document describes it any more \(last defined at \S*zero-trust\/list\.yaml:1\)/,
    );
    const mark = emu.requests().length;
    expect((await apply(ws, emu, '--prune')).code).toBe(1);
    expect(callsSince(emu, mark)).toEqual([]);
  });

  it('refuses a prune that would delete everything, whatever the flags', async () => {
    const { emu, ws } = await fixtureApplied();
    fs.rmSync(ws.root, { recursive: true });
    fs.mkdirSync(ws.root);
    const mark = emu.requests().length;
    const refused = await apply(ws, emu, '--prune', '--force', '--allow-empty', '--max-delete-share', '100', '--max-deletes', '1000');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('a prune that deletes everything is refused whatever the flags');
    expect(callsSince(emu, mark)).toEqual([]);
  });

  it('resumes a delete killed between its intent and its answer: sent again once, nothing created meanwhile', async () => {
    const { emu, ws } = await fixtureApplied();
    const doc = fs.readFileSync(ws.file(LIST.file), 'utf8');
    fs.rmSync(ws.file(LIST.file));
    // The list is deleted, and its answer never comes back before the kill.
    emu.setFaults({ operations: { deleteList: { answer: 'late', delayMs: 30_000, afterProcessing: true } } });
    const killed = startCli(['apply', ...ws.remote(emu), '--prune']);
    // The intent is journalled before the call; the call is carried out at once, its answer held back.
    await waitFor('the delete journalled', async () => (await openIntents(ws)) > 0);
    await sleep(500);
    killed.child.kill('SIGKILL');
    await killed.done;
    emu.setFaults({ operations: null });
    expect(await openIntents(ws)).toBe(1);

    // Without prune it is uncertain; its document put back creates nothing until it is settled.
    const off = JSON.parse((await cli(['plan', ...ws.local, '--json'])).stdout);
    expect(off.uncertain).toEqual([expect.objectContaining({ resource: LIST.key, operation: 'deleteList', delete: true })]);
    fs.writeFileSync(ws.file(LIST.file), doc);
    const back = JSON.parse((await cli(['plan', ...ws.local, '--prune', '--json'])).stdout);
    expect(back.actions).toEqual([]);
    expect(back.uncertain.map((u: { resource: string }) => u.resource)).toEqual([LIST.key]);

    // Pruning again sends the delete once more, under the same intent: a 404, which is done.
    fs.rmSync(ws.file(LIST.file));
    const mark = emu.requests().length;
    const resumed = await apply(ws, emu, '--prune');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(callsSince(emu, mark).map((c) => [c.method, c.status])).toEqual([['DELETE', 404]]);
    expect(resumed.stdout).toContain('gone already (404), forgotten from the state');
    expect(await openIntents(ws)).toBe(0);
    const after = await cli(['plan', ...ws.local, '--prune']);
    expect(after.stdout).toMatch(/^No changes\./);
  });

  it('checks its numbers', async () => {
    const { ws } = await fixtureApplied();
    const bad = await cli(['plan', ...ws.local, '--max-deletes', 'many']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--max-deletes');
  });
});
