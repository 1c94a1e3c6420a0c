// Policy rules compiled and run over plans and configs: positions of a bad expression, a value that
// is not a bool, onError, and sensitive fields reaching CEL masked.

import { describe, expect, it } from 'vitest';
import type { DesiredResource, Json } from '../../src/kinds/kind.js';
import type { Action, Plan } from '../../src/plan/types.js';
import { judgeConfig, judgePlan } from '../../src/policy/evaluate.js';
import { compileRule, configOnly, type PolicyRule } from '../../src/policy/rules.js';

const at = { file: 'policies.yaml', line: 9, col: 19 };

/** A Wednesday at 10:00 UTC: inside the change window of the rules below. */
const WEDNESDAY_MORNING = Date.UTC(2026, 11, 9, 10);

function policyOf(...rules: Partial<PolicyRule>[]): DesiredResource {
  const full = rules.map((r, i) => ({ name: `rule-${i}`, expression: 'true', effect: 'deny', message: `message ${i}`, onError: 'deny', ...r }));
  return {
    key: 'Policy/review',
    kind: 'Policy',
    name: 'review',
    scope: {},
    dependsOn: [],
    request: { rules: full } as unknown as Json,
    payload: { at: full.map(() => at) },
    hash: 'h',
    source: { file: 'policies.yaml', line: 1, col: 1 },
  };
}

function resource(kind: string, name: string, request: Json): DesiredResource {
  return { key: `${kind}/${name}`, kind, name, scope: {}, dependsOn: [], request, hash: 'h', source: { file: `${name}.yaml`, line: 3, col: 1 } };
}

function action(resource: DesiredResource, change: Action['change'], diff: Action['diff'] = []): Action {
  return {
    id: `${resource.key}#${change}`,
    resource: resource.key,
    kind: resource.kind,
    name: resource.name,
    scope: {},
    needs: [],
    change,
    operation: null,
    params: {},
    body: null,
    diff,
    record: {},
  };
}

function planOf(actions: Action[]): Plan {
  return { actions, blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [] };
}

describe('compiling a rule', () => {
  it('gives a syntax error with its line:col in the expression', () => {
    expect(compileRule('resource.kind == "X" &&\n  ')).toEqual({ problem: expect.stringMatching(/^1:22: /), faults: [{ offset: 21, message: expect.any(String) }] });
    expect(compileRule('resource.kind == "X"\n  &&& true')).toMatchObject({ problem: expect.stringMatching(/^2:3: /), faults: [{ offset: 23 }] });
  });

  it('refuses a variable other than resource, action and plan, where it is written', () => {
    expect(compileRule('resource.kind == "X" || resorce.name == "y"')).toEqual({
      problem: '1:25: resorce is not a variable a rule can read (resource, action, plan, now)',
      faults: [{ offset: 24, message: 'resorce is not a variable a rule can read (resource, action, plan, now)' }],
    });
  });

  it('takes the variables of a comprehension for its own, and tells a config-only rule from the others', () => {
    const list = compileRule('resource.spec.items.all(i, size(i.value) < 64)');
    expect('uses' in list && configOnly(list)).toBe(true);
    const deletes = compileRule('action.type != "delete"');
    expect('uses' in deletes && configOnly(deletes)).toBe(false);
    // A config valid at one hour is valid at every hour: a rule that reads the time waits for a plan.
    const hours = compileRule('resource.kind != "ApiToken" || now.getHours("UTC") < 16');
    expect('uses' in hours && configOnly(hours)).toBe(false);
  });
});

describe('judging a plan', () => {
  const list = resource('GatewayList', 'blocked', { name: 'Blocked', items: [{ value: 'a.example' }, { value: 'b.example' }] });

  it('denies an action a rule refuses, naming the rule, its message and where it is written', () => {
    const plan = planOf([action(list, 'delete')]);
    expect(judgePlan(plan, [list, policyOf({ name: 'no-deletes', expression: 'action.type != "delete"' })], WEDNESDAY_MORNING)).toEqual([
      { policy: 'Policy/review', rule: 'no-deletes', effect: 'deny', message: 'message 0', source: at, resource: list.key, action: `${list.key}#delete` },
    ]);
  });

  it('judges each resource by a config-only rule and the plan once by a rule over its counts, warns after denies', () => {
    const findings = judgePlan(
      planOf([action(list, 'create')]),
      [
        list,
        policyOf({ name: 'few', expression: 'plan.create < 1', effect: 'warn' }), // a warning
        policyOf({ name: 'small-lists', expression: 'size(resource.spec.items) <= 1' }),
      ],
      WEDNESDAY_MORNING,
    );
    expect(findings.map((f) => [f.rule, f.effect, f.resource])).toEqual([
      ['small-lists', 'deny', list.key],
      ['few', 'warn', undefined],
    ]);
  });

  it('treats an expression that cannot be evaluated as its onError says', () => {
    const missing = 'resource.spec.no_such_field == 1';
    const judged = (onError: PolicyRule['onError']) => judgePlan(planOf([]), [list, policyOf({ expression: missing, onError })], WEDNESDAY_MORNING);
    expect(judged('deny')).toEqual([expect.objectContaining({ effect: 'deny', error: expect.stringContaining('no_such_field') })]);
    expect(judged('warn')).toEqual([expect.objectContaining({ effect: 'warn' })]);
    expect(judged('ignore')).toEqual([]);
    expect(judgePlan(planOf([]), [list, policyOf({ expression: 'size(resource.spec.items)' })], WEDNESDAY_MORNING)).toEqual([
      expect.objectContaining({ effect: 'deny', error: 'returned int 2, not a bool' }),
    ]);
  });

  it('hands CEL the mask for a sensitive field, never its value', () => {
    const script = resource('WorkerScript', 'api', {});
    const plan = planOf([action(script, 'write', [{ path: 'secrets.API_KEY', before: 'old-secret', after: 'new-secret', sensitive: true }])]);
    const sees = (expression: string) => judgePlan(plan, [script, policyOf({ expression })], WEDNESDAY_MORNING);
    expect(sees('!action.fields.exists(f, f.after == "new-secret" || f.before == "old-secret")')).toEqual([]);
    expect(sees('action.fields.all(f, f.sensitive && f.after == "(sensitive)")')).toEqual([]);
  });
});

describe('a change window, by the time of the plan', () => {
  const list = resource('GatewayList', 'blocked', { name: 'Blocked' });
  const window = policyOf({
    name: 'change-window',
    expression: 'action.type != "delete" || (now.getDayOfWeek("UTC") in [1, 2, 3, 4] && now.getHours("UTC") >= 8 && now.getHours("UTC") < 16)',
  });
  const deleting = planOf([action(list, 'delete')]);
  const judgedAt = (when: string) => judgePlan(deleting, [list, window], Date.parse(when)).map((f) => f.rule);

  it('lets a delete through from Monday to Thursday, 08:00 to 16:00 UTC', () => {
    expect(judgedAt('2026-12-07T08:00:00Z')).toEqual([]); // Monday, as the window opens
    expect(judgedAt('2026-12-10T15:59:59Z')).toEqual([]); // Thursday, as it closes
  });

  it('denies a delete before 08:00, from 16:00, and on a Friday or a weekend', () => {
    expect(judgedAt('2026-12-07T07:59:59Z')).toEqual(['change-window']);
    expect(judgedAt('2026-12-09T16:00:00Z')).toEqual(['change-window']);
    expect(judgedAt('2026-12-11T10:00:00Z')).toEqual(['change-window']); // Friday
    expect(judgedAt('2026-12-13T10:00:00Z')).toEqual(['change-window']); // Sunday
  });

  it('reads the hour in the time zone a rule names', () => {
    const paris = policyOf({ name: 'paris-hours', expression: 'now.getHours("Europe/Paris") < 16' });
    // 15:30 UTC is 16:30 in Paris in December.
    expect(judgePlan(planOf([]), [paris], Date.parse('2026-12-09T15:30:00Z')).map((f) => f.rule)).toEqual(['paris-hours']);
    expect(judgePlan(planOf([]), [paris], Date.parse('2026-12-09T14:30:00Z'))).toEqual([]);
  });

  it('compares now with a timestamp and a duration', () => {
    const freeze = policyOf({ name: 'year-end-freeze', expression: 'now < timestamp("2026-12-24T00:00:00Z") || now >= timestamp("2026-12-24T00:00:00Z") + duration("216h")' });
    expect(judgePlan(planOf([]), [freeze], Date.parse('2026-12-23T23:59:59Z'))).toEqual([]);
    expect(judgePlan(planOf([]), [freeze], Date.parse('2026-12-28T12:00:00Z')).map((f) => f.rule)).toEqual(['year-end-freeze']);
    expect(judgePlan(planOf([]), [freeze], Date.parse('2027-01-02T00:00:00Z'))).toEqual([]);
  });
});

describe('judging the config alone (validate)', () => {
  const token = resource('ApiToken', 'ci', { name: 'CI' });

  it('runs only the config-only rules for findings, and finds a rule that gives no bool', () => {
    const judged = judgeConfig([
      token,
      policyOf(
        { name: 'expiry', expression: 'resource.kind != "ApiToken" || has(resource.spec.expires_on)' },
        { name: 'no-deletes', expression: 'action.type != "create"' },
        { name: 'counted', expression: 'plan.create' },
        { name: 'after-hours', expression: 'now.getHours("UTC") >= 16' },
        { name: 'the-hour', expression: 'now.getHours("UTC")' },
      ),
    ]);
    expect(judged.findings.map((f) => [f.rule, f.resource])).toEqual([['expiry', token.key]]);
    expect(judged.notBool.map((n) => [n.rule.name, n.error])).toEqual([
      ['counted', 'returned double 1, not a bool'],
      ['the-hour', 'returned int 10, not a bool'],
    ]);
  });
});
