import { describe, expect, it } from 'vitest';
import { createReconcileLoop } from '../../../src/daemon/loop.js';
import { checkTiming } from '../../../src/daemon/options.js';
import { PLAN_LINES, planText, withoutBodies } from '../../../src/daemon/ui/plan.js';
import type { Action, Plan } from '../../../src/plan/types.js';
import { FakeEngine, ManualClock, flush, recordingLogger } from '../fakes.js';

const empty: Plan = { actions: [], blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [] };

function tokenAction(name: string): Action {
  return {
    id: `ApiToken/${name}#create`,
    resource: `ApiToken/${name}`,
    kind: 'ApiToken',
    name,
    scope: {},
    needs: [],
    change: 'create',
    operation: 'createToken',
    params: {},
    body: { name, value: 'tok-secret-value-123' },
    record: { request: { name }, kvKeys: [['k', 'h']] },
    diff: [
      { path: 'name', after: name },
      { path: 'value', after: 'tok-secret-value-123', sensitive: true },
    ],
  } as unknown as Action;
}

describe('the plan the status page shows', () => {
  it('keeps no request body, state record or sensitive value between runs', () => {
    const kept = withoutBodies({ ...empty, actions: [tokenAction('ci')] });
    expect(kept.actions[0]).toMatchObject({
      body: undefined,
      record: {},
      diff: [
        { path: 'name', after: 'ci' },
        { path: 'value', after: '(sensitive)', sensitive: true },
      ],
    });
    expect(JSON.stringify(kept)).not.toContain('tok-secret-value-123');
  });

  it('keeps no sensitive value of a field a refresh found changed outside edgesync', () => {
    const drifted = [
      { resource: 'ApiToken/ci', kind: 'ApiToken', name: 'ci', fields: [{ path: 'value', before: 'tok-by-hand-456', after: 'tok-secret-value-123', sensitive: true }] },
    ];
    const kept = withoutBodies({ ...empty, drifted });
    expect(kept.drifted).toEqual([{ ...drifted[0], fields: [{ path: 'value', before: '(sensitive)', after: '(sensitive)', sensitive: true }] }]);
  });

  it('renders what would happen now as the CLI does, with secrets masked', async () => {
    const text = await planText(withoutBodies({ ...empty, actions: [tokenAction('ci')] }), 'failed');
    expect(text).toContain('+ ApiToken/ci  create (POST createToken)');
    expect(text).toContain('value: (sensitive)');
    expect(text).toMatch(/Plan: 1 to create\.$/);
  });

  it('shows nothing left to apply once the last run applied every action', async () => {
    const text = await planText(withoutBodies({ ...empty, actions: [tokenAction('ci')] }), 'ok');
    expect(text).toBe('No changes. 1 resource up to date.');
  });

  it('cuts a long plan after about its bound of lines, says how many resources it left out, and keeps the summary', async () => {
    const actions = Array.from({ length: PLAN_LINES }, (_, i) => tokenAction(`t${i}`));
    const lines = (await planText(withoutBodies({ ...empty, actions }), 'held')).split('\n');
    const shown = lines.filter((l) => l.startsWith('+ ApiToken/')).length;
    // Each create is three lines, shown whole: the first ones up to the bound.
    expect(shown).toBe(Math.ceil(PLAN_LINES / 3));
    expect(lines).toHaveLength(shown * 3 + 3);
    expect(lines.at(-3)).toBe(`… and ${PLAN_LINES - shown} more (\`edgesync plan\` prints them all)`);
    expect(lines.at(-1)).toBe(`Plan: ${PLAN_LINES} to create.`);
  });

  it('is the last plan the loop made, and the loop says when its next resync is due', async () => {
    const clock = new ManualClock();
    const engine = new FakeEngine();
    const loop = createReconcileLoop({
      engine,
      clock,
      logger: recordingLogger().logger,
      timing: checkTiming({ debounceMs: 500, resyncIntervalMs: 3_600_000 }),
    });
    expect(loop.status().plan).toBeUndefined();
    loop.start();
    await flush();
    expect(loop.status().plan?.actions.map((a) => a.resource)).toEqual(['UserProfile/me']);
    expect(loop.status().resyncAt).toBe(new Date(clock.now() + 3_600_000).toISOString());
    await loop.stop();
    expect(loop.status().resyncAt).toBeUndefined();
  });
});
