// `plan --json` and a saved plan (`plan --out`): one stable shape (format_version 2, docs/plan-format.md).
// Bodies are never included: KV values would be huge, and module contents and secrets must not leave.

import { OPERATIONS } from '../api/operations.js';
import type { ChangeType, FieldChange } from '../kinds/kind.js';
import { maskedChange } from './format.js';
import { planHasChanges, summarize } from './summary.js';
import type { Plan } from './types.js';

/**
 * The JSON plan. Fields are added only with a new format_version when their meaning changes;
 * consumers should ignore fields they do not know.
 */
/** What a plan was made from: a saved plan is applied only while all of it still holds. */
export interface MadeFrom {
  readonly edgesync_version: string;
  /** The loader's digest of every resource's key and request hash. */
  readonly config_digest: string;
  /** Each resource of the config by key: the hash of its request (no value, no secret). */
  readonly resources: Readonly<Record<string, string>>;
  /** The state's lineage and write serial; null before any apply. */
  readonly state: { readonly lineage: string; readonly serial: number } | null;
  /** The --target patterns, or empty. */
  readonly targets: readonly string[];
  /**
   * The config root: relative to the folder `plan` ran in, and absolute; `apply FILE` without
   * --config reads it. Absent from plans saved before it was recorded (they read the current folder).
   */
  readonly config_root?: ConfigRoot;
  /** Present when the plan was made after a refresh: `apply FILE` reads what is there again, and refuses if it moved. */
  readonly refresh?: { readonly recreate_missing: boolean };
  /** Present when the plan was made with --prune or --protect: `apply FILE` plans again with the same, so it deletes exactly what the plan does. */
  readonly prune?: { readonly prune: boolean; readonly protect: readonly string[] };
  /** The environment (`--env NAME`) the plan was made for; absent for the config root alone. `apply FILE` under another is refused. */
  readonly environment?: string;
}

export interface ConfigRoot {
  readonly relative: string;
  readonly absolute: string;
}

export interface PlanJson {
  readonly format_version: 2;
  /** What the plan was made from; null when the caller did not say (a plan rendered on its own). */
  readonly made_from: MadeFrom | null;
  /** Whether apply has anything to do (the same test as `--detailed-exitcode`). */
  readonly has_changes: boolean;
  /** In dependency order; an action runs only after every id in `needs` succeeded. */
  readonly actions: readonly {
    readonly id: string;
    readonly resource: string;
    readonly kind: string;
    readonly name: string;
    readonly scope: Readonly<Record<string, string>>;
    readonly change: ChangeType;
    /** null for 'adopt' (recorded in state, no call). */
    readonly operation: string | null;
    readonly method: string | null;
    readonly needs: readonly string[];
    /** Values of sensitive fields are "(sensitive)". */
    readonly diff: readonly FieldChange[];
    readonly summary: string | null;
    /** Lines a reviewer reads under the action besides its diff (an upload's modules, named); absent when none. */
    readonly details?: readonly string[];
    /** KV chunks: pairs and serialized request bytes. */
    readonly size: { readonly pairs: number; readonly bytes: number } | null;
    /** The request hash state records when the action succeeds (absent: it records none). */
    readonly record_hash: string | null;
    /** The Credentials document that signs the call (never its secret); null: the environment's token. */
    readonly credential: string | null;
    /** Present and true when the action sends again what is applied (--resync, --replace). */
    readonly resync?: true;
    /** Where the resource's document starts (a delete: where it was last defined), or null; absent from plans saved before it was recorded. */
    readonly source?: Source | null;
    /**
     * A delete (prune): what leaves the state when it succeeds, the whole resource or these KV keys
     * (a chunk's, at most 10,000); `source`: where the resource was last defined, when known.
     */
    readonly removes?: { readonly resource: true; readonly source: Source | null } | { readonly keys: readonly string[]; readonly source: Source | null; readonly resource?: true };
  }[];
  /** `source`: where the first changed field is written (file relative to the working folder, line, col), else where the document starts, or null. */
  readonly blocked: readonly { resource: string; kind: string; name: string; reason: string; fields: readonly string[]; source: Source | null }[];
  /** `keys` only when some KV keys of a resource are orphaned, not the whole resource; `source`: where it was last defined, when known. */
  readonly orphaned: readonly { resource: string; kind: string; name: string; keys?: readonly string[]; key_count?: number; message: string; source: Source | null }[];
  /** No longer described, of a kind that leaves nothing remote to remove (`why`): applying the plan forgets them from the state. */
  readonly forgotten: readonly { resource: string; kind: string; name: string; why: string; source: Source | null }[];
  /** `delete`: present and true when the call whose outcome is unknown is a delete (prune), not a create. */
  readonly uncertain: readonly { resource: string; kind: string; name: string; operation: string; since: string; message: string; delete?: true }[];
  /** Resources held back until `on` is resolved (`because`: uncertain, blocked or waiting). */
  readonly waiting: readonly { resource: string; kind: string; name: string; on: string; because: string; message: string }[];
  readonly notes: readonly { resource: string; kind: string; name: string; message: string }[];
  /** Present when a token's `expires_on` falls within `--expiry-warning` (or has passed): warnings, nothing is sent for them. */
  readonly expiring?: readonly { resource: string; kind: string; name: string; expires_on: string; message: string; source: Source | null }[];
  /** Keys of resources that need nothing. */
  readonly unchanged: readonly string[];
  /** With --target: keys of the config's resources the run leaves out (else empty). */
  readonly excluded: readonly string[];
  /** With a refresh only: changed outside edgesync (`fields`: before, what is there; after, what was applied), deleted outside it, and what the refresh did. */
  readonly drifted?: readonly { resource: string; kind: string; name: string; fields: readonly unknown[]; source: Source | null }[];
  readonly missing?: readonly { resource: string; kind: string; name: string; message: string; recreated: boolean; source: Source | null }[];
  /** With a refresh only: changed outside edgesync to what the config says (`fields` as in drifted): nothing sent, the state takes it when applied. */
  readonly accepted?: readonly { resource: string; kind: string; name: string; fields: readonly unknown[]; source: Source | null }[];
  /** With a refresh only: KV keys listed that edgesync never wrote and the config does not have (`key_count`, the first `keys`): never touched. */
  readonly unmanaged?: readonly { resource: string; kind: string; name: string; key_count: number; keys: readonly string[] }[];
  /**
   * Findings of the Policy documents' rules, denies first; absent when none. `source`: where the rule's
   * expression is written; `resource` and `action`: what it judged (absent for the plan as a whole).
   */
  readonly policy?: readonly {
    policy: string;
    rule: string;
    effect: 'deny' | 'warn';
    message: string;
    source: Source;
    resource: string | null;
    action: string | null;
    error: string | null;
  }[];
  readonly refresh?: { readonly calls: number; readonly unchecked: readonly { credential: string | null; why: string; resources: number }[] };
  readonly summary: {
    readonly create: number;
    readonly update: number;
    readonly adopt: number;
    readonly roll: number;
    readonly run: number;
    readonly kv_chunks: number;
    readonly kv_pairs: number;
    readonly kv_bytes: number;
    readonly blocked: number;
    readonly orphaned: number;
    readonly orphaned_kv_keys: number;
    readonly forgotten: number;
    readonly uncertain: number;
    readonly waiting: number;
    readonly unchanged: number;
    /** Objects deleted (prune); KV keys deleted and their bulk-delete calls. */
    readonly delete: number;
    readonly kv_delete_keys: number;
    readonly kv_delete_chunks: number;
  };
}

/** Fields are picked one by one so nothing of a body, record or parameter slips through. */
export function planToJson(plan: Plan, madeFrom: MadeFrom | null = null): PlanJson {
  const s = summarize(plan);
  const ref = ({ resource, kind, name }: { resource: string; kind: string; name: string }) => ({ resource, kind, name });
  return {
    format_version: 2,
    made_from: madeFrom,
    has_changes: planHasChanges(plan),
    actions: plan.actions.map((a) => ({
      id: a.id,
      ...ref(a),
      scope: a.scope,
      change: a.change,
      operation: a.operation,
      method: a.operation ? OPERATIONS[a.operation].method : null,
      needs: a.needs,
      diff: a.diff.map(maskedChange),
      summary: a.summary ?? null,
      ...(a.details?.length && { details: a.details }),
      size: a.size ? { pairs: a.size.pairs, bytes: a.size.bytes } : null,
      record_hash: a.record.hash ?? null,
      credential: a.credential ?? null,
      ...(a.resync && { resync: true as const }),
      source: sourceOf(a.source),
      ...(a.change === 'delete' && { removes: removesOf(a) }),
    })),
    blocked: plan.blocked.map((b) => ({ ...ref(b), reason: b.reason, fields: b.fields, source: sourceOf(b.source) })),
    orphaned: plan.orphaned.map((o) => ({
      ...ref(o),
      ...(o.keys && { keys: o.keys }),
      ...(o.keyCount !== undefined && { key_count: o.keyCount }),
      message: o.message,
      source: sourceOf(o.source),
    })),
    forgotten: (plan.forgotten ?? []).map((f) => ({ ...ref(f), why: f.why, source: sourceOf(f.source) })),
    uncertain: plan.uncertain.map((u) => ({ ...ref(u), operation: u.operation, since: u.since, message: u.message, ...(u.delete && { delete: true as const }) })),
    waiting: plan.waiting.map((w) => ({ ...ref(w), on: w.on, because: w.because, message: w.message })),
    notes: plan.notes.map((n) => ({ ...ref(n), message: n.message })),
    ...(plan.expiring?.length && { expiring: plan.expiring.map((e) => ({ ...ref(e), expires_on: e.expiresOn, message: e.message, source: sourceOf(e.source) })) }),
    unchanged: plan.unchanged,
    excluded: plan.excluded ?? [],
    ...(plan.refresh && {
      drifted: (plan.drifted ?? []).map((d) => ({ ...ref(d), fields: d.fields.map(maskedChange), source: sourceOf(d.source) })),
      accepted: (plan.accepted ?? []).map((a) => ({ ...ref(a), fields: a.fields.map(maskedChange), source: sourceOf(a.source) })),
      missing: (plan.missing ?? []).map((m) => ({ ...ref(m), message: m.message, recreated: m.recreated, source: sourceOf(m.source) })),
      unmanaged: (plan.unmanaged ?? []).map((u) => ({ ...ref(u), key_count: u.count, keys: u.keys })),
      refresh: { calls: plan.refresh.calls, unchecked: plan.refresh.unchecked.map((u) => ({ credential: u.credential ?? null, why: u.why, resources: u.resources })) },
    }),
    ...(plan.policy?.length && {
      policy: plan.policy.map((f) => ({
        policy: f.policy,
        rule: f.rule,
        effect: f.effect,
        message: f.message,
        source: sourceOf(f.source)!,
        resource: f.resource ?? null,
        action: f.action ?? null,
        error: f.error ?? null,
      })),
    }),
    summary: {
      create: s.create,
      update: s.update,
      adopt: s.adopt,
      roll: s.roll,
      run: s.run,
      kv_chunks: s.kvChunks,
      kv_pairs: s.kvPairs,
      kv_bytes: s.kvBytes,
      blocked: s.blocked,
      orphaned: s.orphaned,
      orphaned_kv_keys: s.orphanedKvKeys,
      forgotten: s.forgotten,
      uncertain: s.uncertain,
      waiting: s.waiting,
      unchanged: s.unchanged,
      delete: s.delete,
      kv_delete_keys: s.kvDeleteKeys,
      kv_delete_chunks: s.kvDeleteChunks,
    },
  };
}

/** What a delete takes out of the state: the resource, or the keys of its chunk (named, never their values). */
function removesOf(a: Plan['actions'][number]): NonNullable<PlanJson['actions'][number]['removes']> {
  const source = sourceOf(a.source);
  const removed = a.record.removed;
  if (removed && 'keys' in removed) return { keys: removed.keys, source };
  // The last chunk of a namespace's keys takes the resource out with its own keys, the body's.
  if (!Array.isArray(a.body)) return { resource: true, source };
  return { keys: a.body as string[], source, ...(removed && 'resource' in removed && { resource: true as const }) };
}

type Place = { readonly file: string; readonly line: number; readonly col: number };
/** `overlay`: the environment's overlay that changed the document (`--env`), beside the base document's place. */
type Source = Place & { readonly overlay?: Place };

const placeOf = (p: Place): Place => ({ file: p.file, line: p.line, col: p.col });
const sourceOf = (source: Source | undefined): Source | null => (source ? { ...placeOf(source), ...(source.overlay && { overlay: placeOf(source.overlay) }) } : null);

export function renderJson(plan: Plan, madeFrom: MadeFrom | null = null): string {
  return JSON.stringify(planToJson(plan, madeFrom), null, 2);
}
