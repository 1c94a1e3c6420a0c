// The Plan value: the planner's only output, and the only input of renderers and the executor.

import type { ActionDraft, FieldChange, Json, ObservedKeys, SourceLocation } from '../kinds/kind.js';
import type { StateRevision } from '../state/types.js';

export interface Action extends ActionDraft {
  /** `${resource}#${change}` plus `:${suffix}` when several actions share a change. */
  readonly id: string;
  /** Identity key of the resource. */
  readonly resource: string;
  readonly kind: string;
  readonly name: string;
  readonly scope: Readonly<Record<string, string>>;
  /** Ids of actions that must succeed first. */
  readonly needs: readonly string[];
  /** Where the resource's document starts; recorded with what is applied. */
  readonly source?: SourceLocation;
  /** The Credentials document that signs the call; absent: the environment's token. */
  readonly credential?: string;
  /** Sent again as applied, to overwrite drift (--resync, --replace): no change, counted by no threshold. */
  readonly resync?: true;
}

export interface ResourceRef {
  readonly resource: string;
  readonly kind: string;
  readonly name: string;
}

export interface BlockedChange extends ResourceRef {
  readonly reason: string;
  readonly fields: readonly string[];
  /** Where the first written of `fields` is, when the loader kept it (DesiredResource.fieldsAt); else where the document starts. */
  readonly source?: SourceLocation;
}

export interface Orphan extends ResourceRef {
  /** KV keys when only keys of a resource are orphaned; absent when the whole resource is. At most NAMED_KEYS of them. */
  readonly keys?: readonly string[];
  /** How many KV keys are orphaned, when more than `keys` names. @default keys.length */
  readonly keyCount?: number;
  readonly message: string;
  /** Orphaned keys: where the resource is defined; an orphaned resource: the last file that defined it, when state knows. */
  readonly source?: SourceLocation;
}

/**
 * A resource in state that no document describes any more, of a kind that leaves nothing remote to
 * remove (KindDefinition.leavesNothing): applying the plan forgets it from the state; nothing is sent.
 */
export interface Forgotten extends ResourceRef {
  /** Why nothing needs removing, e.g. "a model run leaves nothing to remove". */
  readonly why: string;
  /** Where it was last defined, when state knows. */
  readonly source?: SourceLocation;
}

export interface UncertainCreate extends ResourceRef {
  readonly operation: string;
  readonly since: string;
  readonly message: string;
  /** The call whose outcome is unknown is a delete (prune), not a create. @default a create */
  readonly delete?: true;
}

/** A resource that gets no call until a resource it depends on is resolved. */
export interface WaitingResource extends ResourceRef {
  /** The dependency in trouble (the first one, in dependency order). */
  readonly on: string;
  /** What is wrong with it: its own create is uncertain, it is blocked, or it waits itself. */
  readonly because: 'uncertain' | 'blocked' | 'waiting';
  readonly message: string;
  /** Where the waiting resource's document starts. */
  readonly source?: SourceLocation;
}

/**
 * What a refresh saw of one resource (src/apply/refresh.ts): its object in the request's words, that it
 * is gone, or (a resource read by its parts, a KV namespace) what the listing of its parts showed.
 * `memo`: the one its part's read would keep (ObservedPart.mark), should the state take what is there.
 */
export type Observed =
  | { readonly seen: 'present'; readonly request: Json; readonly memo?: Json }
  | { readonly seen: 'missing' }
  | { readonly seen: 'keys'; readonly keys: ObservedKeys };

/** A resource changed outside edgesync since it was last applied, as a refresh saw it. */
export interface DriftedResource extends ResourceRef {
  /** Each field that moved: `before` what is there now, `after` what was last applied. */
  readonly fields: readonly FieldChange[];
  readonly source?: SourceLocation;
}

/**
 * A resource changed outside edgesync to what the config says now: nothing is sent, and the state
 * takes what is there when the plan is applied, so that the next refresh finds no drift.
 */
export interface AcceptedDrift extends ResourceRef {
  /** Each field that moved: `before` what is there now (and in the config), `after` what was last applied. */
  readonly fields: readonly FieldChange[];
  /** What the state records: the request last applied, with those fields as they are now. */
  readonly request: Json;
  readonly hash: string;
  /** The kind's memo as the refresh read it (a list's items time and count). @default the memo kept */
  readonly memo?: Json;
  readonly source?: SourceLocation;
}

/** A resource in state whose object a refresh did not find: deleted outside edgesync. */
export interface MissingResource extends ResourceRef {
  readonly message: string;
  /** Planned as a create again (--recreate-missing, metadata.recreateMissing); else nothing is sent for it. */
  readonly recreated: boolean;
  readonly source?: SourceLocation;
}

/** Parts of a resource (a KV namespace's keys) a refresh listed that edgesync never wrote and the config does not have: left as they are. */
export interface UnmanagedKeys extends ResourceRef {
  readonly count: number;
  /** The first of them. */
  readonly keys: readonly string[];
}

/** What the refresh before the plan did. */
export interface RefreshSummary {
  /** Read calls made. */
  readonly calls: number;
  /** Deleted objects were planned as creates again (--recreate-missing). */
  readonly recreateMissing: boolean;
  /** Credentials whose reads were refused: their resources were planned against the state alone. */
  readonly unchecked: readonly { readonly credential?: string; readonly why: string; readonly resources: number }[];
}

export interface PlanNote extends ResourceRef {
  readonly message: string;
}

/**
 * A rule of a Policy document its expression did not pass (or could not be evaluated for): a deny
 * stops the run before anything is sent; a warn is shown and counted.
 */
export interface PolicyFinding {
  /** The Policy document's key, e.g. "Policy/safety". */
  readonly policy: string;
  readonly rule: string;
  readonly effect: 'deny' | 'warn';
  /** The rule's message. */
  readonly message: string;
  /** Where the rule's expression is written. */
  readonly source: SourceLocation;
  /** The resource judged; absent for a rule over the plan alone. */
  readonly resource?: string;
  /** The action judged, for a rule that reads `action`. */
  readonly action?: string;
  /** Why the expression could not be evaluated (its onError said what the finding is). */
  readonly error?: string;
  /** Its rule reads `now`: the same plan may pass later (a daemon held by it plans again each minute). @default false */
  readonly timed?: true;
}

/** A token whose `expires_on` falls within the expiry warning window (`--expiry-warning`), or has passed. */
export interface ExpiringResource extends ResourceRef {
  /** As the document writes it (ISO 8601). */
  readonly expiresOn: string;
  readonly message: string;
  /** Its expires_on has passed. @default false */
  readonly expired?: true;
  readonly source?: SourceLocation;
}

export interface Plan {
  /** In dependency order. */
  readonly actions: readonly Action[];
  readonly blocked: readonly BlockedChange[];
  readonly orphaned: readonly Orphan[];
  /** No longer described and nothing remote to remove: forgotten from the state when the plan is applied. @default [] */
  readonly forgotten?: readonly Forgotten[];
  readonly uncertain: readonly UncertainCreate[];
  /** Resources held back, in every run, until what they depend on is resolved. */
  readonly waiting: readonly WaitingResource[];
  readonly notes: readonly PlanNote[];
  /** Resource keys that need nothing. */
  readonly unchanged: readonly string[];
  /**
   * Of `unchanged`, those the state last said were blocked or orphaned: marked applied again before
   * any call, without reading the state once per unchanged resource. buildPlan always sets it.
   * @default every unchanged key, each looked up
   */
  readonly settling?: readonly string[];
  /** How many resources the state held when the plan was made. @default 0 */
  readonly stateResources?: number;
  /** Of those, how many the config still describes (a prune that leaves none is refused). @default stateResources */
  readonly stateDescribed?: number;
  /** With --target: resources of the config the run leaves out, sorted, and the patterns. */
  readonly excluded?: readonly string[];
  readonly targets?: readonly string[];
  /** The state the plan was made against (absent before any apply). */
  readonly stateRevision?: StateRevision;
  /** Resources in state that actions update (update, write, roll): what the update threshold weighs. @default 0 */
  readonly updatedResources?: number;
  /** Per resource with parts (a KV namespace): stored parts, how many the actions rewrite, and its own limit. */
  readonly shares?: readonly Share[];
  /** With a refresh: resources changed outside edgesync; the actions bring them back. @default [] */
  readonly drifted?: readonly DriftedResource[];
  /** With a refresh: resources changed outside edgesync to what the config says now; the state takes them. @default [] */
  readonly accepted?: readonly AcceptedDrift[];
  /** With a refresh: resources deleted outside edgesync. @default [] */
  readonly missing?: readonly MissingResource[];
  /** With a refresh: parts of resources (KV keys) there remotely that edgesync never wrote, never touched. @default [] */
  readonly unmanaged?: readonly UnmanagedKeys[];
  /** With a refresh: its calls, and what it could not read. Absent: the plan read only the state. */
  readonly refresh?: RefreshSummary;
  /**
   * Resources whose protection (metadata.protect, --protect) is not what state records: applying the
   * plan records it (for a resource in state; a new one's once its create succeeded). @default []
   */
  readonly protection?: readonly { readonly resource: string; readonly protect: boolean }[];
  /** What the Policy documents' rules found (src/policy/evaluate.ts), denies first. @default [] */
  readonly policy?: readonly PolicyFinding[];
  /** Tokens that expire within the warning window (`--expiry-warning`), or have expired: warnings, nothing is sent for them. @default [] */
  readonly expiring?: readonly ExpiringResource[];
  /**
   * The earliest time (ms since the epoch) at which a plan of the same config and state would differ
   * (a token's roll falls due, its expiry enters the warning window): the daemon plans again then.
   * @default never
   */
  readonly dueAt?: number;
}

export interface Share extends ResourceRef {
  readonly changed: number;
  readonly of: number;
  /** Stored parts (KV keys) the plan deletes (prune). @default 0 */
  readonly deleted?: number;
  /** metadata.maxChangeShare, in percent. */
  readonly max?: number;
}
