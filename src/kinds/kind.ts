// The one small interface every kind implements, and the desired-model types kinds produce.
// A kind is pure: document → canonical request; (desired, last applied) → what to send or block.

import type { OperationName, ReadName } from '../api/operations.js';
import type { Json } from '../util/json.js';
import type { AppliedResource, KvKeyPage, KvKeys, KvRecordPage, Removed } from '../state/types.js';

export type { Json };
/** A path into a document, e.g. ['spec', 'items', 2, 'value']. */
export type FieldPath = readonly (string | number)[];

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Where the environment's overlay that changed this document starts (`--env`); the place above is the base document's. */
  readonly overlay?: { readonly file: string; readonly line: number; readonly col: number };
}

/** A document after parsing, interpolation and schema validation. */
export interface ResourceDocument {
  readonly apiVersion: 'edgesync/v1';
  readonly kind: string;
  readonly metadata: Readonly<{ name: string; id?: string; dependsOn?: string[] } & Record<string, unknown>>;
  /** Validated against the kind's schema; absent for kinds whose spec may be omitted. */
  // biome-ignore lint/suspicious/noExplicitAny: each kind's schema has validated it, and the kind reads it as its own spec type.
  readonly spec: any;
  /** Absolute path of the YAML file. */
  readonly file: string;
  /** Where the document starts. */
  readonly loc: SourceLocation;
}

/** What a kind may do while building: report problems and read referenced files. */
export interface BuildContext {
  /** Absolute path of the config root. */
  readonly root: string;
  /**
   * Records a problem at a field of the document; every problem is reported, not only the first. `within`:
   * at character `index` of `text`, the field's string (an expression's fault), when it is written on one line.
   */
  issue(path: FieldPath, message: string, within?: { readonly text: string; readonly index: number }): void;
  /**
   * Reads `ref`, relative to the YAML file. On a path leaving the root, a missing file or one
   * over the size bound, records an issue at `path` and returns undefined.
   */
  readFile(ref: string, path: FieldPath): Buffer | undefined;
  /**
   * Checks `ref` as readFile does, without the size bound and without reading it: the file's real
   * path and size, for a source read as a stream (memory stays bounded whatever its size).
   */
  streamFile(ref: string, path: FieldPath): { readonly path: string; readonly size: number } | undefined;
  /**
   * Lists the regular files below folder `ref` (relative to the YAML file), recursively, sorted,
   * dot-files skipped; `rel` uses '/'. On failure records an issue at `path` and returns undefined.
   */
  listFiles(ref: string, path: FieldPath): { rel: string; ref: string; size: number }[] | undefined;
  /**
   * Checks `ref` (relative to the YAML file) as a file a run writes: inside the config root by its
   * written path, inside the outputs folder where it really lands (symlinks followed), neither a
   * YAML file nor the state or the secrets. Returns it relative to the outputs folder, with '/'
   * separators (the same in every checkout); on a refusal records an issue at `path` and returns undefined.
   */
  outputPath(ref: string, path: FieldPath): string | undefined;
  /** When the config is loaded (ms since the epoch), for rules relative to now (a KV expiration at least 60 s ahead). */
  now(): number;
  /** Where the value at `path` is written (else its nearest written ancestor): a Policy's rules keep it for what they report later. */
  place(path: FieldPath): SourceLocation;
}

/** What a kind builds from a document. */
export interface Built {
  /** Canonical request: deterministic JSON; diffed, hashed and (redacted) kept in state. */
  readonly request: Json;
  /** What is sent when it is more than `request` (module contents, KV pairs); never stored. */
  readonly payload?: unknown;
}

/** One resource of the desired model: one document. */
export interface DesiredResource {
  /** Identity: kind + scope + metadata.name, see identityKey(). */
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  /** The operation's path parameters, under the metadata keys the kind names. */
  readonly scope: Readonly<Record<string, string>>;
  /** metadata.id: adopt an object that already exists (POST kinds). */
  readonly id?: string;
  /** metadata.credentials: the Credentials document named to sign this resource's calls. */
  readonly credentials?: string;
  /**
   * The credential that signs its calls, as resolved by the loader (metadata.credentials, the one
   * holding its account, the default); absent: the token of the environment.
   */
  readonly credential?: string;
  /** metadata.maxChangeShare: the percent of this resource's stored parts (KV keys) one apply may rewrite. */
  readonly maxChangeShare?: number;
  /** metadata.resync (KvPairs): `--resync` re-sends every pair of the resource. @default false */
  readonly resync?: boolean;
  /** metadata.recreateMissing: deleted outside edgesync (a refresh saw it gone), it is created again. @default false */
  readonly recreateMissing?: boolean;
  /** metadata.prune (KvPairs): keys this document wrote and no longer has are deleted, as `--prune` does. @default false */
  readonly prune?: boolean;
  /** metadata.protect: prune never deletes its object; removing the document while prune is on is refused at plan. @default false */
  readonly protect?: boolean;
  /** metadata.dependsOn as written ("Kind/name"). */
  readonly dependsOn: readonly string[];
  readonly request: Json;
  readonly payload?: unknown;
  /** contentHash(request). */
  readonly hash: string;
  readonly source: SourceLocation;
  /**
   * Where each top-level field of `spec` is written (its key's line and column), for kinds whose
   * plan may block a change (KindDefinition.placesFields): a blocked change points at its field.
   */
  readonly fieldsAt?: Readonly<Record<string, { readonly line: number; readonly col: number /** An overlay's file, when it set the field. */; readonly file?: string }>>;
}

/**
 * A resource another must follow, named without looking at the desired model. A ref that no
 * desired resource matches is an optional link (the object may exist already): it adds no edge.
 * - `{ key }`: the resource of this identity key (see identityKey).
 * - `{ kind, scope }`: every resource of `kind` whose scope has each of these values; scope keys
 *   the ref leaves out may have any value (a route follows the script of its service in any account).
 */
export type DependencyRef = { readonly key: string } | { readonly kind: string; readonly scope: Readonly<Record<string, string>> };

/** `Kind[k=v,…]/name`, scope keys in the kind's order; `Kind/name` without scope. */
export function identityKey(kind: string, scope: Readonly<Record<string, string>>, name: string, scopeKeys: readonly string[]): string {
  const parts = scopeKeys.filter((k) => scope[k] !== undefined).map((k) => `${k}=${scope[k]}`);
  return parts.length ? `${kind}[${parts.join(',')}]/${name}` : `${kind}/${name}`;
}

/** One field that changes; values of sensitive fields are masked by renderers. */
export interface FieldChange {
  /** Dotted path inside the request, e.g. "name" or "login_design.text_color". */
  readonly path: string;
  readonly before?: Json;
  readonly after?: Json;
  readonly sensitive?: boolean;
}

export type ChangeType =
  | 'create' // POST: a new remote object (intent journal applies)
  | 'update' // PUT/PATCH of an object that exists
  | 'write' // PUT of a whole desired body (PUT kinds, first time or changed)
  | 'roll' // token secret roll
  | 'run' // AI run
  | 'kv' // one chunk of a KV bulk write
  | 'adopt' // metadata.id given: record the id, no call
  | 'delete'; // prune: the provider's delete of an object no document describes (intent journal applies)

/**
 * A body made only when its action is about to be sent (a KV chunk, read from its sources then), with
 * the keys to record: a plan of ten million pairs holds none of them. The executor takes it once.
 */
export interface DeferredBody {
  readonly deferred: true;
  /** The body to send and what to record of it; rejects with why it cannot be sent (a source changed since the plan). */
  take(signal?: AbortSignal): Promise<{ readonly body: unknown; readonly kvKeys?: KvKeys }>;
  /** The action is settled, sent or not: its body is let go (and the next one may be read); its bytes may be reused for a later body. */
  done(): void;
}

export function isDeferred(body: unknown): body is DeferredBody {
  return typeof body === 'object' && body !== null && (body as { deferred?: unknown }).deferred === true;
}

/** A call (or, for 'adopt', a state-only record) a kind decided is needed. */
export interface ActionDraft {
  readonly change: ChangeType;
  /** null only for 'adopt'. */
  readonly operation: OperationName | null;
  readonly params: Readonly<Record<string, string>>;
  /** JSON body; ScriptUpload for putScriptContent; pairs, or a DeferredBody of them, for writeKvBulk. */
  readonly body: unknown;
  readonly diff: readonly FieldChange[];
  /** Distinguishes several actions of one resource (e.g. KV chunk "3/100"). */
  readonly suffix?: string;
  /** Human summary for renderers when the diff is not the story (KV chunks). */
  readonly summary?: string;
  /** Lines a reviewer reads under the action, besides its diff (an upload's modules); never a value or a secret. */
  readonly details?: readonly string[];
  /** KV chunks: pairs and serialized bytes, for progress and plan totals. */
  readonly size?: { readonly pairs: number; readonly bytes: number };
  /** A 404 answer means done: what the call removes is gone already (a detach). Implied for a 'delete'. @default false */
  readonly goneIsDone?: true;
  /**
   * Runs only after every earlier action of its resource succeeded (the KV chunk that records
   * the resource's hash, so the hash is in state only when every chunk was acknowledged).
   */
  readonly afterSiblings?: boolean;
  /** What state records for the resource when this action succeeds. */
  readonly record: {
    /** New last-applied canonical request (redacted by the kind) and its hash. */
    readonly request?: Json;
    readonly hash?: string;
    /** Kind-specific memory (e.g. the token's applied rotate count). */
    readonly memo?: Json;
    /** KV: each key of this chunk with the hash of (value, expiration fields, metadata) and its expiry. */
    readonly kvKeys?: KvKeys;
    /**
     * A delete: what leaves the state when it succeeds (or is answered 404, already gone): the whole
     * resource (its stored secret too), or these KV keys of it.
     */
    readonly removed?: Removed;
  };
}

export interface BlockedDraft {
  readonly reason: string;
  readonly fields: readonly string[];
}

/** A kind's decision for one resource; the planner adds ids, order and the resource's identity. */
export interface KindDecision {
  readonly actions: readonly ActionDraft[];
  readonly blocked: readonly BlockedDraft[];
  /** Things the plan should say that need no call (e.g. "last_name removed: left as it is remotely"). */
  readonly notes: readonly string[];
  /** KV: keys in state that the desired model no longer has (the first NAMED_KEYS of them). */
  readonly orphanedKeys?: readonly string[];
  /** KV: how many keys are orphaned, when more than `orphanedKeys` names. @default orphanedKeys.length */
  readonly orphanedKeyCount?: number;
  /** Parts of the resource (KV keys) state holds, and how many of them the actions rewrite: for change thresholds. */
  readonly share?: { readonly changed: number; readonly of: number };
  /** After a refresh (PlanContext.observedKeys): what moved outside edgesync, each as a change from what is there to what the plan does. */
  readonly drifted?: readonly FieldChange[];
  /** After a refresh: parts present remotely that edgesync never wrote and the config does not have: left alone. */
  readonly unmanaged?: KeyTally;
  /** A credential the resource is (a token) stops working soon: its `expires_on` falls within PlanContext.expiryWarningMs. */
  readonly expiring?: { readonly expiresOn: string; readonly message: string; readonly expired?: true };
  /**
   * The earliest time (ms since the epoch) at which the same inputs decide otherwise (a token's roll
   * falls due, its expiry enters the warning window): a decision kept between plans ends then. @default never
   */
  readonly until?: number;
}

export interface PlanContext {
  readonly desired: DesiredResource;
  /** Undefined when never applied. */
  readonly applied?: AppliedResource;
  /** The plan's time, ms since the epoch: what falls due by time (a token's spec.rotateEvery) is judged at it. @default none: nothing falls due */
  readonly now?: number;
  /** How long before a token's `expires_on` the plan warns (`--expiry-warning`), in ms. @default 14 days */
  readonly expiryWarningMs?: number;
  /** KvPairs only, when no pages are given (a test's state): key → stored hash. */
  readonly kvKeys?: ReadonlyMap<string, string>;
  /** KvPairs only: the stored keys and hashes in UTF-8 byte order, a page at a time, read from the state as iterated. */
  readonly kvKeyPages?: () => AsyncIterable<KvKeyPage>;
  /** KvPairs only: how many keys the state holds for the resource (cheap). */
  readonly kvKeyCount?: number;
  /** KvPairs only: stored keys whose recorded expiry has passed at the plan's time: gone remotely (cheap, indexed). */
  readonly kvExpired?: readonly string[];
  /** A kind with `observeKeys`, after a refresh: what the listing of its parts showed. @default not refreshed */
  readonly observedKeys?: ObservedKeys;
  /**
   * KvPairs only, under `--prune` or metadata.prune: stored keys the config dropped are deleted (`delete`
   * actions of at most 10,000 keys), except those another document of the namespace writes now.
   * @default not pruned: they are orphaned keys
   */
  readonly prune?: { readonly writtenElsewhere: (key: string) => boolean };
}

/** What to remember from a successful call, read from its result. */
export interface Outcome {
  readonly remoteId?: string;
  readonly etag?: string;
  /** A token secret: written to the secrets folder (0600) and nowhere else. */
  readonly secret?: string;
  /** AiRun: the result to write to spec.output; `path` is relative to the outputs folder ('/' separators). */
  /** JSON `content` is written pretty; `bytes` (an image a model answered) byte for byte. */
  readonly output?: { readonly path: string; readonly content: Json; readonly bytes?: Uint8Array; readonly contentType?: string };
  readonly memo?: Json;
  /** Said in the plan/apply output (e.g. "created without an id: later updates need metadata.id"). */
  readonly warning?: string;
  /**
   * Part of the call was refused (a bulk write's unsuccessful keys): those keys (`record.kvKeys`) are
   * not recorded, and `body` sends them again; everything else of the action was applied.
   */
  readonly refused?: { readonly keys: readonly string[]; readonly body: unknown };
}

/** A remote object (or a file) a resource writes; two resources writing one are refused at load. */
export interface WriteTarget {
  /** What is written, unique across kinds and readable in an error: "route route-1 of zone zone-1". */
  readonly what: string;
  /** The field that names it, where the error points. @default ['metadata', 'name'] */
  readonly at?: FieldPath;
  /**
   * Set when resources may share the target by writing disjoint parts (a namespace's KV keys):
   * the parts this one writes, sorted by UTF-8 bytes (compareUtf8) and unique. Read only when two resources share the target.
   */
  readonly parts?: () => readonly string[];
}

/**
 * Drift: what sends a resource's whole desired request again over what was applied (`--resync`,
 * `--replace`), or why nothing can. `skip` is a reason `--resync` passes over it quietly (a KV
 * namespace that did not opt in) while `--replace` may still re-send it.
 */
export type Resend = { readonly actions: readonly ActionDraft[] } | { readonly refused: string } | { readonly skip: string; readonly actions: readonly ActionDraft[] };

/**
 * How a kind's objects are read back from the provider (a refresh) and put in its request's words,
 * so that what is there can be compared with what the config wants (src/plan/observed.ts).
 */
export interface Observation {
  /**
   * The read: a list of the kind's objects in a scope (one call a page serves every resource of that
   * scope), or the read of the resource's one object (a singleton, the user).
   */
  readonly read: ReadName;
  /** The read's path parameters (and query filters), from the resource's scope and, for a read of one object, its id. */
  params(scope: Readonly<Record<string, string>>, id: string | undefined): Readonly<Record<string, string>>;
  /**
   * Which object of a list is the resource's: the id it is known by (from the scope, the remote id
   * state keeps or metadata.id gives, or the request last applied, else the desired one: a hostname).
   * Undefined: nothing to look for yet (never created).
   * @default the remote id
   */
  readonly idFor?: (scope: Readonly<Record<string, string>>, remoteId: string | undefined, request: Json) => string | undefined;
  /** A listed object's id, in the words of idFor. @default its `id` */
  readonly idOf?: (object: Readonly<Record<string, Json>>) => string | undefined;
  /**
   * The object in the request's words (the document's field names and value shapes), server-set
   * fields left out; `params` are the read's (the account a singleton belongs to). @default the object as read
   */
  readonly asRequest?: (object: Readonly<Record<string, Json>>, params: Readonly<Record<string, string>>) => Json;
  /** Set-like lists of the request (src/plan/observed.ts SetPaths): their order is the server's. @default none */
  readonly sets?: readonly string[];
  /** Top-level string fields whose case is not theirs (a hostname): the server's case never makes a drift. @default none */
  readonly caseless?: readonly string[];
  /**
   * A field of the request that the object's read does not carry, read by a list of its own for
   * each object found (a Gateway list's items: one call a page per list), and only for a resource
   * whose last applied request sets the field and whose object moved since (`unmoved`). @default none
   */
  readonly part?: ObservedPart;
}

/** See Observation.part. */
interface ObservedPart {
  /** The request field it fills, e.g. `items`. */
  readonly field: string;
  /** A paged list read. */
  readonly read: ReadName;
  /** Its path parameters, from the object's read's parameters and the object's id. */
  params(parent: Readonly<Record<string, string>>, id: string): Readonly<Record<string, string>>;
  /** One listed element in the request's words. @default the element as read */
  readonly asRequest?: (element: Json) => Json;
  /**
   * Whether the listed object shows its part as the last write left it, by the memo that write's
   * answer left (Outcome.memo): the part is then taken from the request last applied, no call.
   * @default never: the part is read
   */
  readonly unmoved?: (object: Readonly<Record<string, Json>>, memo: Json | undefined) => boolean;
  /**
   * The memo to keep when the state takes the part as read (a drift the config now agrees with), in
   * the form `unmoved` checks, so that the next refresh reads it no more. @default none: read again
   */
  readonly mark?: (object: Readonly<Record<string, Json>>, elements: readonly Json[]) => Json | undefined;
}

/** Keys counted, the first of them named (a namespace may hold millions). */
interface KeyTally {
  readonly count: number;
  readonly keys: readonly string[];
}

/** One reason a stored part's remote copy is not what was written (missing, another expiry, another value). */
export interface KeyDrift extends KeyTally {
  readonly why: string;
}

/**
 * What a refresh saw of a resource's parts (a namespace's keys), walked in byte order against the
 * keys state stored and the keys the config has.
 */
export interface ObservedKeys {
  /** Keys the listing gave. */
  readonly listed: number;
  /** Stored keys whose remote copy is not what was written, by reason. */
  readonly drift: readonly KeyDrift[];
  /** Of those, the ones the config still has, by their position in the kind's model (KV: seqs), in the walk's order: written again. */
  readonly again: Uint32Array;
  /** Of those, the ones the config no longer has and that are gone remotely, sorted: nothing is left to remove. */
  readonly gone: readonly string[];
  /** Listed keys neither stored nor in the config: never written by edgesync, never touched. */
  readonly unmanaged: KeyTally;
}

/** How a kind's parts are read back in a refresh: a listing of its scope, walked against the stored parts. */
export interface KeyObservation {
  /** The listing (one call a page). */
  readonly read: ReadName;
  /** Its path parameters, from the resource's scope. */
  params(scope: Readonly<Record<string, string>>): Readonly<Record<string, string>>;
  /** Its query: the page size. */
  readonly query: Readonly<Record<string, string>>;
  /**
   * Walks the listing's pages (in the provider's order, UTF-8 bytes) beside the stored keys and the
   * desired ones, holding a page of each at a time. `now`: seconds since the epoch.
   */
  compare(desired: DesiredResource, listing: AsyncIterable<readonly Json[]>, stored: AsyncIterable<KvRecordPage>, now: number): Promise<ObservedKeys>;
}

export interface KindDefinition {
  readonly kind: string;
  /** Metadata keys that are the operations' path parameters, in path order. */
  readonly scopeKeys: readonly string[];
  /**
   * Scope keys a document may leave out (the id of a route edgesync creates, unknown until then): the
   * identity key is made of those given. @default none: each scope key is required
   */
  readonly optionalScope?: readonly string[];
  /** Schema file under schemas/, e.g. "gateway-list.schema.json". */
  readonly schema: string;
  /**
   * Request building: canonical, deterministic; problems go to ctx.issue. A kind that reads much besides the
   * document (KvPairs: millions of pairs) answers with a Promise, giving the event loop turns as it reads.
   */
  build(doc: ResourceDocument, ctx: BuildContext): Built | Promise<Built>;
  /** Pure: what this resource writes that another document could write too (its singleton, its adopted id). */
  targets?(self: DesiredResource): readonly WriteTarget[];
  /**
   * Pure: the resources this one must follow (beyond metadata.dependsOn), named as data. The
   * planner resolves them through an index of the desired model, which no kind ever sees.
   */
  dependencies?(self: DesiredResource): readonly DependencyRef[];
  /**
   * What changes, by which operation, and what is blocked. Pure: it reads nothing but `ctx`; a kind
   * that reads the state's KV keys (`ctx.kvKeyPages`) answers with a Promise, the others at once.
   */
  plan(ctx: PlanContext): KindDecision | Promise<KindDecision>;
  /** Pure: what to remember after `action` succeeded with `result`. */
  outcome(action: ActionDraft, result: unknown, ctx: PlanContext): Outcome;
  /**
   * Pure: whether a create's refusal says the object exists already (an account's one organization):
   * then the create is settled as succeeded (the object adopted, its intent closed), with this
   * message, and the actions after it (the update that makes it match the file) run as planned.
   * Undefined: a refusal like any other. @default never
   */
  readonly existsAlready?: (action: ActionDraft, error: unknown) => string | undefined;
  /** The operations its actions may call: a credential that signs only some operations is checked against them. */
  readonly operations: readonly OperationName[];
  /**
   * Acts on the calling user, not an account: metadata.credentials is then part of its identity
   * (two profiles under two credentials are two users). @default false
   */
  readonly userScope?: boolean;
  /** The planner hands this kind per-key state (PlanContext.kvKeys, kvKeyCount, kvExpired). @default false */
  readonly keyState?: boolean;
  /**
   * Its plan may block a change of a field (a kind created once): the loader keeps where each
   * top-level spec field is written (DesiredResource.fieldsAt), so the plan points at the field
   * that changed rather than at the document. Only such kinds keep them. @default false
   */
  readonly placesFields?: boolean;
  /**
   * Why a resource of this kind leaves nothing remote to remove once no document describes it (a
   * model run, a credential): the plan then forgets it from the state by itself, saying this,
   * rather than asking a person to remove it by hand. @default undefined: an orphan
   */
  readonly leavesNothing?: string;
  /** Files a run writes for the resource, relative to the outputs folder: the watcher takes them for no change. */
  writes?(self: DesiredResource): readonly string[];
  /**
   * Pure: re-sending the applied resource's whole desired request (see Resend). The families fill it
   * in from the operation that applies the whole request: PUT and PATCH re-send, a POST (created
   * once) or a run does not. Asked only of a resource in state with no change of its own.
   * @default refused: the kind has no operation that re-sends it
   */
  resend?(ctx: PlanContext): Resend;
  /** How its objects are read back for a refresh. @default none: the kind is planned against the state alone */
  readonly observe?: Observation;
  /** How its parts (KV keys) are read back for a refresh. @default none */
  readonly observeKeys?: KeyObservation;
  /**
   * How prune deletes an object of this kind that edgesync created or adopted, once no document
   * describes it. @default none: never deleted (a singleton, the user: "no longer managed")
   */
  readonly remove?: Removal;
}

/** See KindDefinition.remove. */
export interface Removal {
  /** The provider's delete (a DELETE, or the KV bulk delete). */
  readonly operation: OperationName;
  /**
   * Its path parameters, from what state kept of the resource (its scope, the remote id, the request
   * last applied). Undefined: state does not know which object it is (created without an id), so
   * nothing can be deleted; the plan says why.
   */
  params(applied: AppliedResource): Readonly<Record<string, string>> | undefined;
  /** The kind keeps a secret under the resource's name (a token's): deleted with it. @default false */
  readonly secret?: true;
}
