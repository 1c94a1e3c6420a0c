// Runs the Policy documents' rules: over a plan (every rule, before anything is sent) or over the config
// alone (`validate`: the rules that read none of action, plan and now). Pure: resources and a Plan in, findings out.

import type { DesiredResource, FieldChange, Json, SourceLocation } from '../kinds/kind.js';
import { maskedChange } from '../plan/format.js';
import { summarize } from '../plan/summary.js';
import type { Action, Plan, PolicyFinding } from '../plan/types.js';
import { compileRule, configOnly, POLICY_KIND, type Compiled, type PlacedRule, type Variable } from './rules.js';

/** Every rule of the config's Policy documents, with where it is written. */
function rulesOf(resources: readonly DesiredResource[]): PlacedRule[] {
  const out: PlacedRule[] = [];
  for (const r of resources) {
    if (r.kind !== POLICY_KIND) continue;
    const rules = (r.request as { rules?: PlacedRule[] }).rules ?? [];
    const places = (r.payload as { at?: SourceLocation[] } | undefined)?.at ?? [];
    rules.forEach((rule, i) => out.push({ ...rule, policy: r.key, at: places[i] ?? r.source }));
  }
  return out;
}

/** Denies first, then warns, each in the order the rules and resources came. */
function ordered(findings: PolicyFinding[]): PolicyFinding[] {
  return [...findings.filter((f) => f.effect === 'deny'), ...findings.filter((f) => f.effect === 'warn')];
}

/** How soon a plan a rule that reads `now` denied is judged again: a change window opens on a minute. */
const TIMED_RECHECK_MS = 60_000;

/** When a plan denied by a rule that reads `now` should be made again: the next minute; undefined when no such rule denied it. */
export function recheckAt(findings: readonly PolicyFinding[], now: number): number | undefined {
  return findings.some((f) => f.effect === 'deny' && f.timed) ? (Math.floor(now / TIMED_RECHECK_MS) + 1) * TIMED_RECHECK_MS : undefined;
}

/**
 * A plan's findings: each rule over what it reads (each action, each resource, or the plan once). `now`:
 * when the plan is made (ms since the epoch, from the run's clock), what a change window compares.
 */
export function judgePlan(plan: Plan, resources: readonly DesiredResource[], now: number): PolicyFinding[] {
  const rules = rulesOf(resources);
  if (!rules.length) return [];
  const byKey = new Map(resources.map((r) => [r.key, r]));
  const drifted = new Set((plan.drifted ?? []).map((d) => d.resource));
  const counts = planCounts(plan);
  const at = timestamp(now);
  // With --target, the resources left out are not judged: the run sends nothing of them.
  const excluded = new Set(plan.excluded ?? []);
  const judged = resources.filter((r) => r.kind !== POLICY_KIND && !excluded.has(r.key));
  const findings: PolicyFinding[] = [];
  for (const rule of rules) {
    const program = compileRule(rule.expression);
    // The loader refuses a rule that does not compile: only a config built otherwise gets here.
    if ('problem' in program) {
      findings.push(finding(rule, { effect: 'deny', error: program.problem }));
      continue;
    }
    if (program.uses.has('action')) {
      const done = new Set<string>();
      for (const action of plan.actions) {
        if (done.has(action.resource)) continue;
        const resource = resourceValue(byKey.get(action.resource), action);
        const found = judge(rule, program, { resource, action: actionValue(action, drifted), plan: counts, now: at }, { resource: action.resource, action: action.id });
        if (found) findings.push(found), done.add(action.resource);
      }
    } else if (program.uses.has('resource') || configOnly(program)) {
      for (const r of judged) {
        const found = judge(rule, program, { resource: resourceValue(r), action: null, plan: counts, now: at }, { resource: r.key });
        if (found) findings.push(found);
      }
    } else {
      const found = judge(rule, program, { resource: null, action: null, plan: counts, now: at }, {});
      if (found) findings.push(found);
    }
  }
  return ordered(findings);
}

/** What `validate` finds: the config-only rules over every resource, and any rule whose value is not a bool. */
export interface ConfigJudgement {
  readonly findings: readonly PolicyFinding[];
  /** Rules whose expression gave something else than a bool, each once, with what it gave. */
  readonly notBool: readonly { readonly rule: PlacedRule; readonly error: string }[];
}

/**
 * The config alone: config-only rules judge each resource; the others run against sample bindings (each
 * resource created, in a plan that creates them all, at SAMPLE_NOW) only to find a result that is not a
 * bool: their errors there say nothing, as the real action, plan and time may hold what the sample does not.
 */
export function judgeConfig(resources: readonly DesiredResource[]): ConfigJudgement {
  const judged = resources.filter((r) => r.kind !== POLICY_KIND);
  const findings: PolicyFinding[] = [];
  const notBool: { rule: PlacedRule; error: string }[] = [];
  const sampleNow = timestamp(SAMPLE_NOW);
  const sampleCounts = {
    ...planCounts({ actions: [], blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [] }),
    create: judged.length,
    actions: judged.length,
  };
  for (const rule of rulesOf(resources)) {
    const program = compileRule(rule.expression);
    if ('problem' in program) continue;
    const only = configOnly(program);
    for (const r of judged) {
      const resource = resourceValue(r);
      const bindings = only ? { resource, action: null, plan: null, now: null } : { resource, action: sampleAction(r), plan: sampleCounts, now: sampleNow };
      const result = program.run(bindings);
      if ('notBool' in result) {
        notBool.push({ rule, error: result.error });
        break;
      }
      if (!only) continue;
      const found = outcome(rule, result, { resource: r.key });
      if (found) findings.push(found);
    }
  }
  return { findings: ordered(findings), notBool };
}

type Bindings = Readonly<Record<Variable, unknown>>;

/** The time `validate`'s sample runs at: a rule's type does not depend on it (a Monday, 10:00 UTC). */
const SAMPLE_NOW = Date.UTC(2024, 0, 1, 10);

/**
 * `ms` as a CEL timestamp (google.protobuf.Timestamp, the message shape @bufbuild/cel reads), so that
 * `now.getDayOfWeek("UTC")`, `now.getHours("Europe/Paris")` and `now - duration("1h")` work.
 */
function timestamp(ms: number): Readonly<Record<string, unknown>> {
  const seconds = Math.floor(ms / 1000);
  return { $typeName: 'google.protobuf.Timestamp', seconds: BigInt(seconds), nanos: Math.round(ms - seconds * 1000) * 1_000_000 };
}

function judge(rule: PlacedRule, program: Compiled, bindings: Bindings, about: Pick<PolicyFinding, 'resource' | 'action'>): PolicyFinding | undefined {
  const found = outcome(rule, program.run(bindings), about);
  return found && program.uses.has('now') ? { ...found, timed: true } : found;
}

/** False: the rule's effect; an error: what its onError says. */
function outcome(rule: PlacedRule, result: ReturnType<Compiled['run']>, about: Pick<PolicyFinding, 'resource' | 'action'>): PolicyFinding | undefined {
  if ('value' in result) return result.value ? undefined : finding(rule, { effect: rule.effect, ...about });
  if (rule.onError === 'ignore') return undefined;
  return finding(rule, { effect: rule.onError, error: result.error, ...about });
}

function finding(rule: PlacedRule, rest: Pick<PolicyFinding, 'effect' | 'resource' | 'action' | 'error'>): PolicyFinding {
  return {
    policy: rule.policy,
    rule: rule.name,
    effect: rest.effect,
    message: rule.message,
    source: rule.at,
    ...(rest.resource !== undefined && { resource: rest.resource }),
    ...(rest.action !== undefined && { action: rest.action }),
    ...(rest.error !== undefined && { error: rest.error }),
  };
}

/** `resource`: what the config says of it (spec: its request, as the plan compares it); a resource being deleted has an empty spec. */
function resourceValue(r: DesiredResource | undefined, action?: Action): Record<string, unknown> {
  if (!r) {
    const { resource, kind, name, scope } = action!;
    return { kind, key: resource, name, metadata: { name, ...scope }, spec: {} };
  }
  const metadata = {
    name: r.name,
    ...r.scope,
    ...(r.id !== undefined && { id: r.id }),
    ...(r.credentials !== undefined && { credentials: r.credentials }),
    protect: r.protect === true,
    dependsOn: r.dependsOn,
  };
  return { kind: r.kind, key: r.key, name: r.name, metadata, spec: r.request ?? {} };
}

/** The change types a rule compares `action.type` with. */
function actionType(action: Action, drifted: ReadonlySet<string>): string {
  if (action.resync) return 'resync';
  if (drifted.has(action.resource)) return 'drift';
  if (action.change === 'write' || action.change === 'kv') return 'update';
  return action.change;
}

/** `action`: its type, operation and changed fields, sensitive values as the plan masks them. */
function actionValue(action: Action, drifted: ReadonlySet<string>): Record<string, unknown> {
  return { type: actionType(action, drifted), id: action.id, operation: action.operation ?? '', fields: action.diff.map(fieldValue) };
}

function fieldValue(change: FieldChange): Record<string, Json | boolean> {
  const masked = maskedChange(change);
  return {
    path: masked.path,
    ...(masked.before !== undefined && { before: masked.before }),
    ...(masked.after !== undefined && { after: masked.after }),
    sensitive: masked.sensitive === true,
  };
}

/** A create of the resource, each field of its request written: the sample `validate` runs other rules against. */
function sampleAction(r: DesiredResource): Record<string, unknown> {
  const fields =
    r.request && typeof r.request === 'object' && !Array.isArray(r.request) ? Object.entries(r.request).map(([path, after]) => ({ path, after, sensitive: false })) : [];
  return { type: 'create', id: `${r.key}#create`, operation: '', fields };
}

/** `plan`: the plan's counts, as its summary line and `plan --json` give them, and its actions. */
function planCounts(plan: Plan): Record<string, number> {
  return { ...summarize(plan), actions: plan.actions.length };
}
