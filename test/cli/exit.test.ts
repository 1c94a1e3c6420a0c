// Exit codes that mean converged: 0 only when the config is wholly in force, 2 for changes to
// apply (plan), 3 when nothing is left to apply but a person must act, 1 on a failed call.

import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/apply/index.js';
import { applyExitCode, EXIT, planExitCode } from '../../src/cli/exit.js';
import type { Plan } from '../../src/plan/types.js';
import { action, plan } from '../apply/helpers.js';

const ref = { resource: 'GatewayList/a', kind: 'GatewayList', name: 'a' };
const uncertain: Plan = plan([], { uncertain: [{ ...ref, operation: 'createList', since: '2026-11-23T00:00:00Z', message: 'resolve it' }] });
const blocked: Plan = plan([], { blocked: [{ ...ref, reason: 'no update operation exists', fields: ['type'] }] });
const waiting: Plan = plan([], { waiting: [{ ...ref, on: 'GatewayAccount/x', because: 'uncertain', message: 'waits' }] });
const orphaned: Plan = plan([], { orphaned: [{ ...ref, message: 'remove it by hand' }] });
const result = (over: Partial<ApplyResult> = {}): ApplyResult => ({ succeeded: [], failed: [], skipped: [], uncertain: [], requests: 1, warnings: [], stopped: false, ...over });

describe('plan --detailed-exitcode', () => {
  it('is 0 in step, also with orphans (the config no longer asks for them)', () => {
    expect(planExitCode(plan([]))).toBe(EXIT.ok);
    expect(planExitCode(orphaned)).toBe(0);
  });

  it('is 2 with changes to apply, even beside something blocked', () => {
    expect(planExitCode(plan([action('a')], { blocked: blocked.blocked }))).toBe(2);
  });

  it.each([
    ['an uncertain create', uncertain],
    ['a blocked change', blocked],
    ['a resource waiting on one', waiting],
  ])('is 3 with nothing to apply but %s', (_what, p) => {
    expect(planExitCode(p)).toBe(3);
  });
});

describe('apply', () => {
  it('is 0 when every call succeeded and nothing needs a person', () => {
    expect(applyExitCode(plan([action('a')]), result({ succeeded: [{ action: action('a'), attempts: 1 }] }), 0)).toBe(0);
    expect(applyExitCode(orphaned, undefined, 0)).toBe(0);
  });

  it('is 1 when a call failed or ended uncertain, or the run was stopped', () => {
    const a = action('a');
    expect(applyExitCode(plan([a]), result({ failed: [{ action: a, error: 'x', attempts: 1, terminal: true }] }), 0)).toBe(1);
    expect(applyExitCode(plan([a]), result({ uncertain: [{ action: a, error: 'timeout' }] }), 0)).toBe(1);
    expect(applyExitCode(plan([a]), result({ stopped: true }), 0)).toBe(1);
  });

  it('is 3 when the calls succeeded but something needs a person: blocked, uncertain from before, waiting, a lost secret', () => {
    for (const p of [blocked, uncertain, waiting]) expect(applyExitCode(p, undefined, 0)).toBe(3);
    expect(applyExitCode(plan([action('a')], { blocked: blocked.blocked }), result(), 0)).toBe(3);
    const a = action('a');
    expect(applyExitCode(plan([a]), result({ failed: [{ action: a, error: 'x', attempts: 1, terminal: true, secretLost: 'EACCES' }] }), 1)).toBe(3);
  });
});
