// The desired-state loader: a config root → every error at once, or the desired model and its
// digest. Files are found, read within bounds, parsed with positions, validated, then built; with a
// cache (./cache.ts), only files that changed since the last load are read and built again.

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { DesiredResource } from '../kinds/kind.js';
import { allKinds } from '../kinds/registry.js';
import { ENVELOPE_SCHEMA, type DocumentOutcome } from './document.js';
import { displayFile, sortErrors, type ConfigError } from './errors.js';
import { beginLoad, type ConfigCache } from './cache.js';
import { dropSpareLoadHelper, helperPays } from './load-helper.js';
import { buildInOrder, buildTwoThreads } from './load-files.js';
import { discover, discoveryErrors } from './files.js';
import { ENVIRONMENTS_DIR, readEnvironment, unmatchedOverlays } from './overlays.js';
import { isHiddenBelow, isInside, realpathNearest } from './paths.js';
import { sharedTargets } from './shared-writes.js';
import { checkCredentials } from './credentials.js';
import type { Env } from './interpolate.js';
import { createSchemaValidator, DEFAULT_SCHEMAS_DIR, type SchemaValidator } from './schema.js';
import type { SourceRevision } from './revision.js';
import { TurnClock, turn } from '../util/turn.js';
import { sortedIndices } from '../util/sort-steps.js';

export { formatError, type ConfigError } from './errors.js';
export { createConfigCache, type LoadCounts } from './cache.js';

/** How a config root is loaded. */
export interface LoadOptions {
  /** The config root folder. */
  readonly root: string;
  /** Where `${NAME}` values come from. @default process.env */
  readonly env?: Env;
  /** A YAML file larger than this is refused without being read. @default 16 MiB */
  readonly maxFileBytes?: number;
  /** A `file:` reference larger than this is refused (KV JSON sources can be large). @default 512 MiB */
  readonly maxReferencedBytes?: number;
  /** Absolute paths of edgesync's own files (the state file and its siblings): never config. @default [] */
  readonly ignore?: readonly string[];
  /**
   * The folder token secrets are written to. Inside the root, outside a dot-folder, it is refused:
   * its files would be taken for config. Never read by a reference. @default none
   */
  readonly secrets?: string;
  /**
   * Whether a file of the secrets folder names a token secret kept elsewhere (a PostgreSQL state's,
   * with EDGESYNC_SECRETS_KEY): a credential's secret file it names is not looked for on disk. @default none
   */
  readonly storedSecret?: (file: string) => boolean;
  /**
   * Whether each credential's secret is looked for: its variable set, its file there and owner-only.
   * False (`validate`: nothing is sent) checks only that each reference is well formed. @default true
   */
  readonly checkSecrets?: boolean;
  /**
   * Where AiRun outputs are written: a spec.output (relative to its YAML file, inside the root)
   * lands at the same place relative to this folder. @default the root
   */
  readonly outputs?: string;
  /** Nodes a document may produce by expanding aliases; past it, an alias bomb is refused. @default 100000 */
  readonly maxAliasNodes?: number;
  /** Levels of nested lists and maps a document may have (real ones have under ten). @default 64 */
  readonly maxDepth?: number;
  /** Where the schemas are, for tests with fixture kinds. @default the package's schemas/ */
  readonly schemas?: SchemaValidator;
  /** The time rules relative to now are checked against (a KV expiration at least 60 s ahead). @default Date.now */
  readonly now?: () => number;
  /**
   * Whether a load that reads every file (no cache, or nothing kept) builds them in two threads:
   * a helper thread takes files as the main thread does (./load-helper.ts). A document whose
   * build asks for the time or an output path, or holds KV pairs, is built by the main thread.
   * @default true for 4 MiB of YAML or more, with the package's schemas, on a machine of 2 cores or more
   */
  readonly helperThread?: boolean;
  /**
   * Other work for this thread, called once while the files are built: once a helper thread has
   * started, so the two overlap (a plan reads the state meanwhile); else before the first file.
   * @default none
   */
  readonly meanwhile?: () => void;
  /**
   * What the last load of this root kept (createConfigCache): only files whose stamp or content
   * changed, or that `cache.invalidate` names, are read and built again; cross-document checks
   * run over all. The result is the one a load without it gives. @default none: every file read
   */
  readonly cache?: ConfigCache;
  /**
   * `--env NAME`: the overlays of environments/NAME/ merged over the base documents (./overlays.ts).
   * Without it, environments/ is never read. @default none: the base alone
   */
  readonly environment?: string;
}

/** `revision`: the git commit the files were read at, when the source knows one (./source.ts). */
export type LoadResult =
  | { readonly ok: true; readonly resources: readonly DesiredResource[]; readonly files: readonly string[]; readonly digest: string; readonly revision?: SourceRevision }
  | { readonly ok: false; readonly errors: readonly ConfigError[]; readonly files: readonly string[]; readonly revision?: SourceRevision };

const MiB = 1024 * 1024;

/** The options with their defaults, paths made absolute; their values come checked from the config source. */
function resolveOptions(options: LoadOptions) {
  return {
    root: path.resolve(options.root),
    env: options.env ?? process.env,
    maxFileBytes: options.maxFileBytes ?? 16 * MiB,
    maxReferencedBytes: options.maxReferencedBytes ?? 512 * MiB,
    maxAliasNodes: options.maxAliasNodes ?? 100_000,
    maxDepth: options.maxDepth ?? 64,
    ignore: (options.ignore ?? []).map((p) => path.resolve(p)),
    secrets: options.secrets === undefined ? undefined : path.resolve(options.secrets),
    outputs: options.outputs === undefined ? undefined : path.resolve(options.outputs),
    storedSecret: options.storedSecret,
    checkSecrets: options.checkSecrets ?? true,
    validator: options.schemas,
    now: options.now ?? Date.now,
    cache: options.cache,
    helperThread: options.helperThread,
    meanwhile: options.meanwhile,
    environment: options.environment,
  };
}

let defaultValidator: SchemaValidator | undefined;

/**
 * Compiles the package's schemas a load uses (the envelope's and every kind's), with a turn of the
 * event loop between two: a daemon does so before its first load, so that no document of that load
 * holds the loop for a compile as well (10 to 35 ms each here).
 */
export async function warmSchemas(): Promise<void> {
  const validator = (defaultValidator ??= createSchemaValidator());
  for (const file of [ENVELOPE_SCHEMA, ...allKinds().map((k) => k.schema)]) {
    if (!validator.has(file)) continue;
    validator.validate(file, null);
    await turn();
  }
}

/** Loads every YAML file under `options.root`; one invalid document makes the whole config invalid. */
export async function loadConfig(options: LoadOptions): Promise<LoadResult> {
  const opts = resolveOptions(options);
  const validator = opts.validator ?? (defaultValidator ??= createSchemaValidator());
  const own = ownPathsOf(opts.root, opts.ignore, opts.secrets);
  // Overlays are never base documents, with or without --env.
  const found = await discover(opts.root, [...own, path.join(opts.root, ENVIRONMENTS_DIR)]);
  const errors: ConfigError[] = discoveryErrors(found);
  if (opts.secrets !== undefined && found.realRoot && secretsInside(opts.root, found.realRoot, opts.secrets)) {
    errors.push({ file: displayFile(opts.secrets), line: 1, col: 1, path: '', message: SECRETS_INSIDE });
  }
  if (errors.length && !found.files.length) return { ok: false, errors: sortErrors(errors), files: [] };
  // Own paths in both forms, so neither a reference nor an output reaches them through a symlink.
  const ownBoth = [...new Set([...own, ...own.map(realpathNearest)])];
  const bounds = { root: opts.root, realRoot: found.realRoot, ignore: ownBoth, maxReferencedBytes: opts.maxReferencedBytes, outputs: opts.outputs ?? opts.root, now: opts.now };
  const limits = { maxAliasNodes: opts.maxAliasNodes, maxDepth: opts.maxDepth };
  const environment =
    opts.environment === undefined ? undefined : await readEnvironment(opts.root, opts.environment, own, { env: opts.env, maxFileBytes: opts.maxFileBytes, limits });
  // Everything a file's outcome depends on besides its bytes and references (`now` aside: see RecordedInputs).
  const key = JSON.stringify([
    bounds.root,
    bounds.realRoot,
    bounds.ignore,
    bounds.maxReferencedBytes,
    bounds.outputs,
    opts.maxFileBytes,
    limits,
    process.cwd(),
    environment?.digest,
  ]);
  const document = { validator, bounds };
  const pass = beginLoad(opts.cache, { env: opts.env, maxFileBytes: opts.maxFileBytes, limits, document, ...(environment && { environment }) }, key);
  // A helper thread builds the base alone: an environment's load stays on this thread (its overlays are few).
  const helped =
    pass.cold && !environment && (opts.helperThread ?? (validator.dir === DEFAULT_SCHEMAS_DIR && helperPays(Array.from(found.stamps.values(), (stamp) => stamp.size))));
  if (!helped) dropSpareLoadHelper();
  const done = helped ? await buildTwoThreads(pass, found, { ...opts, bounds, limits, schemas: validator.dir }) : await buildInOrder(pass, found, opts.meanwhile);
  pass.end();
  const outcomes: DocumentOutcome[] = [];
  for (const d of done) {
    errors.push(...d.errors);
    for (const o of d.outcomes) outcomes.push(o);
  }
  if (environment) {
    const overlays = await unmatchedOverlays(environment, outcomes, document);
    errors.push(...overlays.errors);
    outcomes.push(...overlays.added);
  }
  for (const o of outcomes) errors.push(...o.errors);
  // The checks over every document take tens of milliseconds each at 20,000: the event loop runs between them.
  await turn();
  errors.push(...identityChecks(outcomes));
  await turn();
  errors.push(...sharedTargets(outcomes));
  await turn();
  const signed = await checkCredentials(outcomes, opts.env, opts.secrets, opts.checkSecrets ? opts.storedSecret : false);
  errors.push(...signed.errors);
  await turn();
  if (errors.length) return { ok: false, errors: sortErrors(errors), files: found.files };
  const { resources } = signed;
  // Made when first read: `plan` and `validate` never read it (0.1 s at 50,000 resources).
  return {
    ok: true,
    resources,
    files: found.files,
    get digest() {
      return digestOf(resources);
    },
  };
}

/**
 * contentHash of the [key, hash] pairs in key order. Their canonical JSON is their plain JSON (no
 * object keys to sort), so it is hashed as is: the same digest, written into one 64 KiB buffer
 * piece by piece. The daemon digests at every load; the text built by `+` was 26 MiB of garbage per
 * load at 50,000 resources.
 */
export function digestOf(resources: readonly DesiredResource[]): string {
  const pieces = digestPieces(resources);
  let step = pieces.next();
  while (!step.done) step = pieces.next();
  return step.value;
}

/** Each list of resources' digest once made: a load's `digest` is read again and again. */
const digests = new WeakMap<readonly DesiredResource[], string>();

/**
 * digestOf with a turn of the event loop whenever one is due between two pieces: a daemon makes a
 * load's digest so before reading `digest`, which then costs nothing.
 */
export async function digestInTurns(resources: readonly DesiredResource[]): Promise<string> {
  return new TurnClock().through(digestPieces(resources));
}

/** Resources between two pieces of the digest's work. */
const DIGEST_PIECE = 1024;

/** The digest's work, paused after the key order and every DIGEST_PIECE resources; none when it was made before. */
function* digestPieces(resources: readonly DesiredResource[]): Generator<void, string> {
  const known = digests.get(resources);
  if (known !== undefined) return known;
  const order = yield* keyOrder(resources);
  yield;
  const out = new DigestWriter();
  out.raw('[');
  for (let n = 0; n < order.length; n++) {
    if (n % DIGEST_PIECE === DIGEST_PIECE - 1) yield;
    const r = resources[order[n]!]!;
    out.raw(n ? ',["' : '["');
    out.text(r.key);
    out.raw('","');
    out.text(r.hash);
    out.raw('"]');
  }
  out.raw(']');
  const digest = out.digest();
  digests.set(resources, digest);
  return digest;
}

/** What JSON.stringify writes other than the characters themselves: quotes, backslashes, controls, lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON must escape are what it looks for.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** sha256 of text written in pieces, buffered: each piece is encoded in place, not joined to the others first. */
class DigestWriter {
  private readonly hash = createHash('sha256');
  private readonly buffer = Buffer.allocUnsafe(65_536);
  private used = 0;

  /** A string's JSON body (between its quotes). */
  text(value: string): void {
    this.raw(ESCAPED.test(value) ? JSON.stringify(value).slice(1, -1) : value);
  }

  raw(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + text.length * 3 > this.buffer.length) this.flush();
    if (text.length * 3 > this.buffer.length) this.hash.update(text);
    else this.used += this.buffer.write(text, this.used);
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }

  private flush(): void {
    if (this.used) this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

/** The last list of keys digested and its key order: the daemon's next load has the same keys, mostly. */
let lastOrder: { readonly keys: readonly string[]; readonly order: Uint32Array } | undefined;

/** Keys sorted between two pauses of the key order. */
const SORTED_PER_PIECE = 4096;

/**
 * Indices of `resources` in key order, paused between slices of the sort (20,000 keys took 30 to 70 ms in one
 * piece); the last order again when the keys are the same, in the same places.
 */
function* keyOrder(resources: readonly DesiredResource[]): Generator<void, Uint32Array> {
  const last = lastOrder;
  if (last && last.keys.length === resources.length && resources.every((r, i) => r.key === last.keys[i])) return last.order;
  const keys = resources.map((r) => r.key);
  const order = yield* sortedIndices(keys.length, (a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0), SORTED_PER_PIECE);
  lastOrder = { keys, order };
  return order;
}

const SECRETS_INSIDE =
  'the secrets folder is inside the config root, where its files would be taken for config: pass `--secrets DIR` outside the root, or keep it under a dot-folder such as .edgesync/';

/** Own files and the secrets folder; a folder that is the root or holds it would hide the whole config. */
function ownPathsOf(root: string, ignore: readonly string[], secrets: string | undefined): string[] {
  return [...ignore, ...(secrets === undefined || isInside(secrets, root) ? [] : [secrets])];
}

/** Inside the root by its written path or by where it really is, and not under a folder discovery skips. */
function secretsInside(root: string, realRoot: string, secrets: string): boolean {
  const real = realpathNearest(secrets);
  return (isInside(root, secrets) && !isHiddenBelow(root, secrets)) || (isInside(realRoot, real) && !isHiddenBelow(realRoot, real));
}

/** Duplicate identities (one error naming both places) and dependsOn naming nothing. */
function identityChecks(outcomes: readonly DocumentOutcome[]): ConfigError[] {
  const errors: ConfigError[] = [];
  const first = new Map<string, NonNullable<DocumentOutcome['identity']>>();
  const dependents: DocumentOutcome[] = [];
  for (const outcome of outcomes) {
    const { identity } = outcome;
    if (outcome.dependsOn.length) dependents.push(outcome);
    if (!identity) continue;
    const earlier = first.get(identity.key);
    if (earlier) {
      const { file, line, col } = earlier.at;
      errors.push({ ...identity.at, message: `${identity.key} is defined twice: here and at ${file}:${line}:${col}` });
    } else {
      first.set(identity.key, identity);
    }
  }
  // Kind/name refs are indexed only when a document has a dependsOn: most configs have few or none.
  if (dependents.length) {
    const byKindName = new Set<string>();
    for (const { identity } of outcomes) if (identity) byKindName.add(`${identity.kind}/${identity.name}`);
    for (const { dependsOn } of dependents) {
      for (const { ref, at } of dependsOn) {
        if (!first.has(ref) && !byKindName.has(ref)) errors.push({ ...at, message: `depends on "${ref}", which no document defines` });
      }
    }
  }
  return errors;
}
