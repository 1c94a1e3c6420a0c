// What time does to a plan of a token: a roll that falls due and an expiry that comes near, shown in
// each renderer, and a plan memo that stops holding a step at the step's own due time.

import { describe, expect, it } from 'vitest';
import { buildPlan, PlanMemo, planFromJson, planToJson, renderMarkdown, renderText } from '../../src/plan/index.js';
import type { AppliedResource } from '../../src/state/types.js';
import { desire } from '../kinds/helpers.js';
import { snapshot } from './fakes.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const policies = [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: { 'com.example.zone.1': '*' } }];
const expiresOn = new Date(T0 + 40 * DAY).toISOString();
const token = desire('ApiToken', { name: 'ci-deploy' }, { name: 'CI deploy', policies, expires_on: expiresOn, rotateEvery: '30d' }).desired;
const applied: AppliedResource = {
  key: token.key,
  kind: 'ApiToken',
  name: 'ci-deploy',
  scope: {},
  remoteId: 'ed17574386854bf78a67040be0a770b0',
  request: { name: 'CI deploy', policies, expires_on: expiresOn, status: 'active' },
  memo: { rotate: 0, rolledAt: new Date(T0).toISOString() },
  status: 'applied',
};
const state = snapshot({ resources: [applied] });

describe('a plan of a token over time', () => {
  it('names the earliest time it would change: the roll, then the expiry warning', async () => {
    expect((await buildPlan([token], state, { now: T0 + DAY })).dueAt).toBe(T0 + 26 * DAY);
    expect((await buildPlan([token], state, { now: T0 + DAY, expiryWarningMs: 5 * DAY })).dueAt).toBe(T0 + 30 * DAY);
  });

  it('does not keep a step past its due time: a memo never hides a roll that fell due', async () => {
    const memo = new PlanMemo();
    const options = { expiryWarningMs: DAY };
    expect((await buildPlan([token], state, { ...options, now: T0 + DAY, memo })).actions).toEqual([]);
    expect((await buildPlan([token], state, { ...options, now: T0 + 30 * DAY - 1, memo })).actions).toEqual([]);
    const due = await buildPlan([token], state, { ...options, now: T0 + 30 * DAY, memo });
    expect(due.actions.map((a) => a.id)).toEqual(['ApiToken/ci-deploy#roll']);
    expect(due).toEqual(await buildPlan([token], state, { ...options, now: T0 + 30 * DAY }));
  });

  it('shows an expiring token in the text, JSON and Markdown plans, and in a plan read back from JSON', async () => {
    const plan = await buildPlan([token], state, { now: T0 + 37 * DAY, expiryWarningMs: 14 * DAY });
    const message = `expires in 3 days, at ${expiresOn}: set a later spec.expires_on, or a new token, before then`;
    expect(plan.expiring).toEqual([{ resource: 'ApiToken/ci-deploy', kind: 'ApiToken', name: 'ci-deploy', expiresOn, message, source: token.source }]);
    const text = renderText(plan);
    expect(text).toContain(`! ApiToken/ci-deploy  expires on ${expiresOn} (${token.source.file}:1)\n    ${message}`);
    const json = planToJson(plan);
    expect(json.expiring).toEqual([
      { resource: 'ApiToken/ci-deploy', kind: 'ApiToken', name: 'ci-deploy', expires_on: expiresOn, message, source: { file: token.source.file, line: 1, col: 1 } },
    ]);
    expect(json.has_changes).toBe(true);
    expect(renderMarkdown(json)).toContain(`expires on ${expiresOn}`);
    expect(renderText(planFromJson(json))).toContain(message);
  });

  it('says an expiring token in the summary, and leaves it out of a plan outside the window', async () => {
    const quiet = await buildPlan([token], state, { now: T0 + DAY, expiryWarningMs: DAY });
    expect(quiet.expiring).toBeUndefined();
    expect(renderText(quiet)).toBe('No changes. 1 resource up to date.');
    const near = await buildPlan([token], state, { now: T0 + 39 * DAY + 1, expiryWarningMs: 14 * DAY });
    expect(renderText(near).split('\n').at(-1)).toBe('Plan: 1 to roll; 1 expiring.');
  });
});
