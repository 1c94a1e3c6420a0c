// Counts over a Plan: the summary line, `plan --json` and `--detailed-exitcode` read these.
// "update" counts every call that changes an existing object or writes a whole body.

import type { Plan, PolicyFinding } from './types.js';

export interface PlanSummary {
  readonly create: number;
  /** update and write actions. */
  readonly update: number;
  /** metadata.id adoptions: recorded in state, no call. */
  readonly adopt: number;
  readonly roll: number;
  readonly run: number;
  readonly kvChunks: number;
  readonly kvPairs: number;
  readonly kvBytes: number;
  readonly blocked: number;
  /** Orphan entries: whole resources, and KV resources with orphaned keys. */
  readonly orphaned: number;
  readonly orphanedKvKeys: number;
  /** No longer described, nothing remote to remove: forgotten from the state when applied. */
  readonly forgotten: number;
  readonly uncertain: number;
  /** Resources held back until a dependency is resolved. */
  readonly waiting: number;
  readonly unchanged: number;
  /** With a refresh: resources changed outside edgesync, and those deleted outside it. */
  readonly drifted: number;
  readonly missing: number;
  /** With a refresh: resources changed outside edgesync to what the config says; recorded in the state when applied. */
  readonly accepted: number;
  /** Tokens whose expiry falls within the warning window (`--expiry-warning`), or has passed. @default 0 */
  readonly expiring?: number;
  /** Resources sent again as applied (--resync, --replace), and their calls (KV chunks included); not in `update`. */
  readonly resync: number;
  readonly resyncCalls: number;
  /** Of the KV chunks and pairs above, those re-sent. */
  readonly resyncKvChunks: number;
  readonly resyncKvPairs: number;
  /** Objects deleted by prune (a namespace's keys are counted apart). */
  readonly delete: number;
  /** KV keys deleted by prune, and their bulk-delete calls. */
  readonly kvDeleteKeys: number;
  readonly kvDeleteChunks: number;
  /** Findings of the Policy documents' rules: denies (nothing is sent) and warnings. @default 0 */
  readonly denied?: number;
  readonly warned?: number;
}

/** Actions present: apply has something to do. */
export function planHasChanges(plan: Plan): boolean {
  return plan.actions.length > 0;
}

/** The findings of deny rules: with any, nothing of the plan is sent. */
export function policyDenies(plan: Plan): PolicyFinding[] {
  return (plan.policy ?? []).filter((f) => f.effect === 'deny');
}

/** The rules that deny the plan, each named once ("Policy/review rule no-deletes"), in the order of their findings. */
export function denyingRules(plan: Plan): string[] {
  return [...new Set(policyDenies(plan).map((f) => `${f.policy} rule ${f.rule}`))];
}

/** A resource of the config that no apply can bring in step until a person acts, and why. */
export interface Attention {
  readonly resource: string;
  readonly why: 'uncertain' | 'blocked' | 'waiting' | 'missing';
  readonly message: string;
}

/**
 * What keeps the config from being in force that applying cannot fix: uncertain creates, blocked
 * changes and what waits on them. Orphans are not here: the config no longer asks for them.
 */
export function needsAttention(plan: Plan): Attention[] {
  return [
    ...plan.uncertain.map((u) => ({ resource: u.resource, why: 'uncertain' as const, message: u.message })),
    ...plan.blocked.map((b) => ({ resource: b.resource, why: 'blocked' as const, message: b.reason })),
    ...plan.waiting.map((w) => ({ resource: w.resource, why: 'waiting' as const, message: w.message })),
    ...(plan.missing ?? []).filter((m) => !m.recreated).map((m) => ({ resource: m.resource, why: 'missing' as const, message: m.message })),
  ];
}

/** The config is not wholly in force yet: actions to apply, or something that needs a person. */
export function planHasPending(plan: Plan): boolean {
  return planHasChanges(plan) || needsAttention(plan).length > 0;
}

export function summarize(plan: Plan): PlanSummary {
  const count = {
    create: 0,
    update: 0,
    adopt: 0,
    roll: 0,
    run: 0,
    kvChunks: 0,
    kvPairs: 0,
    kvBytes: 0,
    resyncCalls: 0,
    resyncKvChunks: 0,
    resyncKvPairs: 0,
    delete: 0,
    kvDeleteKeys: 0,
    kvDeleteChunks: 0,
  };
  const resynced = new Set<string>();
  for (const action of plan.actions) {
    if (action.resync) {
      resynced.add(action.resource);
      count.resyncCalls++;
      if (action.change === 'kv') {
        count.resyncKvChunks++;
        count.resyncKvPairs += action.size?.pairs ?? 0;
      }
    }
    switch (action.change) {
      case 'create':
        count.create++;
        break;
      case 'update':
      case 'write':
        if (!action.resync) count.update++;
        break;
      case 'adopt':
        count.adopt++;
        break;
      case 'roll':
        count.roll++;
        break;
      case 'run':
        count.run++;
        break;
      case 'delete':
        if (Array.isArray(action.body)) {
          count.kvDeleteChunks++;
          count.kvDeleteKeys += action.body.length;
        } else count.delete++;
        break;
      case 'kv':
        count.kvChunks++;
        count.kvPairs += action.size?.pairs ?? 0;
        count.kvBytes += action.size?.bytes ?? 0;
        break;
    }
  }
  return {
    ...count,
    blocked: plan.blocked.length,
    orphaned: plan.orphaned.length,
    orphanedKvKeys: plan.orphaned.reduce((n, o) => n + (o.keyCount ?? o.keys?.length ?? 0), 0),
    forgotten: plan.forgotten?.length ?? 0,
    uncertain: plan.uncertain.length,
    waiting: plan.waiting.length,
    unchanged: plan.unchanged.length,
    drifted: plan.drifted?.length ?? 0,
    missing: plan.missing?.length ?? 0,
    accepted: plan.accepted?.length ?? 0,
    ...(plan.expiring?.length && { expiring: plan.expiring.length }),
    resync: resynced.size,
    ...(plan.policy?.length && policyCounts(plan.policy)),
  };
}

/** Denies and warnings among a plan's policy findings. */
export function policyCounts(findings: readonly Pick<PolicyFinding, 'effect'>[]): { denied: number; warned: number } {
  const denied = findings.filter((f) => f.effect === 'deny').length;
  return { denied, warned: findings.length - denied };
}
