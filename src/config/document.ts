// One parsed document → its errors, or the DesiredResource its kind builds: envelope, then the
// kind's schema, then the scope keys, then kind.build with a BuildContext for file references.

import { checkAdoptedId, checkScopeValue } from '../kinds/identifiers.js';
import { allKinds, getKind } from '../kinds/registry.js';
import {
  identityKey,
  type BuildContext,
  type Built,
  type DesiredResource,
  type FieldPath,
  type KindDefinition,
  type ResourceDocument,
  type SourceLocation,
  type WriteTarget,
} from '../kinds/kind.js';
import { closest, didYouMean } from '../util/closest.js';
import { contentHash, detached, type Json } from '../util/json.js';
import { fieldPath, type ConfigError } from './errors.js';
import { describeErrors, type Finding } from './messages.js';
import { createBuildContext, type ReferenceBounds } from './references.js';
import type { SchemaValidator } from './schema.js';
import type { BuildInputs } from './stamps.js';
import type { ParsedDocument } from './yaml.js';

export const ENVELOPE_SCHEMA = 'document.schema.json';

export interface DocumentOutcome {
  readonly errors: readonly ConfigError[];
  readonly resource?: DesiredResource;
  /** Known whenever kind, name and scope are readable, even when other fields are wrong. */
  readonly identity?: { readonly key: string; readonly kind: string; readonly name: string; readonly at: ConfigError };
  readonly dependsOn: readonly { readonly ref: string; readonly at: ConfigError }[];
  /** What the built resource writes that another document could write too, each with where it is named. */
  readonly writes?: readonly { readonly target: WriteTarget; readonly at: ConfigError }[];
  /**
   * Where a field of a Credentials document is, for errors found across documents. Only those few
   * keep their locator; a loader keeps 50,000 other outcomes between loads.
   */
  readonly at?: (path: FieldPath, message: string) => ConfigError;
  /** Where metadata.credentials is written, when the document names one (its name's place is identity.at). */
  readonly credentialsAt?: ConfigError;
  /** The environment's overlays this base document met (./overlays.ts). */
  readonly overlaid?: Overlaid;
}

/** Which overlays of an environment a base document met (./overlays.ts), and where that document is: said when one overlay meets two. */
export interface Overlaid {
  readonly by: readonly number[];
  readonly target: string;
}

export interface DocumentContext {
  readonly validator: SchemaValidator;
  readonly bounds: ReferenceBounds;
  /** Told what the build reads besides the document. @default nothing recorded */
  readonly inputs?: BuildInputs;
}

type Raw = Record<string, unknown>;
type ErrorAt = (path: FieldPath, message: string, at?: 'key' | 'value') => ConfigError;
type Identity = NonNullable<DocumentOutcome['identity']>;

/**
 * The document's outcome; a Promise when its kind's build answers with one (KvPairs), at once otherwise: a
 * file of 50,000 small documents waits on none.
 */
export function processDocument(parsed: ParsedDocument, file: string, display: string, ctx: DocumentContext): DocumentOutcome | Promise<DocumentOutcome> {
  const { locator } = parsed;
  const errorAt: ErrorAt = (path, message, at = 'value') => {
    const { line, col, from } = at === 'key' ? locator.key(path) : locator.value(path);
    return { file: from?.display ?? display, line, col, path: fieldPath(path), message };
  };
  const errors: ConfigError[] = parsed.problems.map((p) => ({ file: display, line: p.line, col: p.col, path: fieldPath(p.path), message: p.message }));
  const doc = parsed.value;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { errors: [...errors, errorAt([], 'expected a document with apiVersion, kind, metadata and spec')], dependsOn: [] };
  }
  const raw = doc as Raw;
  const def = checkSchemas(raw, ctx.validator, errorAt, errors);
  if (!def) return { errors, dependsOn: [] };
  const metadata = (raw.metadata !== null && typeof raw.metadata === 'object' ? raw.metadata : {}) as Raw;
  const { scope, identity, dependsOn } = readIdentity(def, metadata, errorAt, errors);
  if (errors.length || !identity) return { errors, identity, dependsOn };

  const source: SourceLocation = { file: display, ...locator.start, ...(parsed.overlay && { overlay: parsed.overlay }) };
  const document: ResourceDocument = { apiVersion: 'edgesync/v1', kind: def.kind, metadata: metadata as ResourceDocument['metadata'], spec: raw.spec, file, loc: source };
  const issues: ConfigError[] = [];
  const place = (path: FieldPath): SourceLocation => {
    const { line, col, from } = locator.value(path);
    return { file: from?.display ?? display, line, col };
  };
  // An issue at a character of a one-line string is placed there; else at the string, as any other.
  const issue: BuildContext['issue'] = (path, message, within) => {
    const exact = within && locator.within(path, within.text, within.index);
    issues.push(exact ? { file: exact.from?.display ?? display, line: exact.line, col: exact.col, path: fieldPath(path), message } : errorAt(path, message));
  };
  // A reference an overlay wrote is relative to the overlay's file.
  const fileAt = parsed.overlay && ((path: FieldPath) => locator.value(path).from?.file ?? file);
  const buildContext = createBuildContext(ctx.bounds, fileAt ?? file, issue, place, ctx.inputs);
  const refused = (err: unknown) => void issues.push(errorAt([], `${def.kind} could not be built: ${err instanceof Error ? err.message : String(err)}`));
  let built: Built | Promise<Built> | undefined;
  try {
    built = def.build(document, buildContext);
  } catch (err) {
    refused(err);
  }
  const outcome = (built: Built | undefined): DocumentOutcome => {
    if (issues.length || !built) return { errors: issues, identity, dependsOn };
    return builtOutcome(def, built, { raw, metadata, scope, identity, dependsOn, source, locator, errorAt });
  };
  if (!(built instanceof Promise)) return outcome(built);
  return built.then(outcome, (err: unknown) => {
    refused(err);
    return outcome(undefined);
  });
}

/** What a built document gives, beside its build: read before the build, kept for what follows it. */
interface Around {
  readonly raw: Raw;
  readonly metadata: Raw;
  readonly scope: Record<string, string>;
  readonly identity: Identity;
  readonly dependsOn: DocumentOutcome['dependsOn'];
  readonly source: SourceLocation;
  readonly locator: ParsedDocument['locator'];
  readonly errorAt: ErrorAt;
}

/** A document built without an issue: its resource, and what it writes. */
function builtOutcome(def: KindDefinition, built: Built, { raw, metadata, scope, identity, dependsOn, source, locator, errorAt }: Around): DocumentOutcome {
  const resource: DesiredResource = {
    key: identity.key,
    kind: def.kind,
    name: identity.name,
    scope,
    ...(typeof metadata.id === 'string' ? { id: metadata.id } : {}),
    ...(typeof metadata.maxChangeShare === 'number' ? { maxChangeShare: metadata.maxChangeShare } : {}),
    ...(metadata.resync === true ? { resync: true } : {}),
    ...(metadata.recreateMissing === true ? { recreateMissing: true } : {}),
    ...(metadata.prune === true ? { prune: true } : {}),
    ...(metadata.protect === true ? { protect: true } : {}),
    ...(typeof metadata.credentials === 'string' ? { credentials: metadata.credentials } : {}),
    dependsOn: dependsOn.length ? dependsOn.map((d) => d.ref) : NONE,
    request: built.request as Json,
    ...(built.payload !== undefined ? { payload: built.payload } : {}),
    hash: contentHash(built.request),
    source,
    ...(def.placesFields && { fieldsAt: fieldsAt(raw.spec, locator) }),
  };
  // metadata.name is placed once, for the identity and the writes named at it: each is spread, never changed.
  const nameAt = identity.at;
  const found = def.targets?.(resource) ?? NONE;
  const writes = found.length ? found.map((target) => ({ target, at: target.at === undefined ? nameAt : errorAt(target.at, '') })) : NONE;
  if (def.kind === 'Credentials') return { errors: NONE, resource, identity, dependsOn, writes, at: (path: FieldPath, message: string) => errorAt(path, message) };
  if (resource.credentials === undefined) return { errors: NONE, resource, identity, dependsOn, writes };
  return { errors: NONE, resource, identity, dependsOn, writes, credentialsAt: errorAt(['metadata', 'credentials'], '') };
}

/** Where each top-level field of `spec` is written: its key's place (a blocked change points there). */
function fieldsAt(spec: unknown, locator: ParsedDocument['locator']): DesiredResource['fieldsAt'] {
  const places: Record<string, { line: number; col: number; file?: string }> = {};
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return places;
  for (const field of Object.keys(spec)) {
    const { line, col, from } = locator.key(['spec', field]);
    places[field] = from ? { line, col, file: from.display } : { line, col };
  }
  return places;
}

/** One empty list for every document with no errors, dependsOn or writes: a loader keeping 50,000 outcomes keeps one. */
const NONE: readonly never[] = Object.freeze([]);

/** The envelope, then the kind's own schema; the kind when it is a registered one. */
function checkSchemas(raw: Raw, validator: SchemaValidator, errorAt: ErrorAt, errors: ConfigError[]): KindDefinition | undefined {
  const report = (findings: readonly Finding[]) => errors.push(...findings.map((f) => errorAt(f.path, f.message, f.at)));
  report(describeErrors(validator.validate(ENVELOPE_SCHEMA, raw), raw));
  const def = typeof raw.kind === 'string' ? getKind(raw.kind) : undefined;
  if (typeof raw.kind === 'string' && !def) {
    const kinds = allKinds()
      .map((k) => k.kind)
      .sort();
    const close = closest(raw.kind, kinds);
    errors.push(errorAt(['kind'], `unknown kind "${raw.kind}"${close.length ? `${didYouMean(close)} Known kinds` : '; known kinds'}: ${kinds.join(', ') || '(none registered)'}`));
  }
  if (!def) return undefined;
  if (!validator.has(def.schema)) errors.push(errorAt(['kind'], `the schema of ${def.kind} (${def.schema}) is missing from ${validator.dir}`));
  else report(describeErrors(validator.validate(def.schema, raw), raw));
  return def;
}

/** Scope from the kind's metadata keys, the identity key when name and scope are readable, and dependsOn. */
function readIdentity(def: KindDefinition, metadata: Raw, errorAt: ErrorAt, errors: ConfigError[]) {
  const scope: Record<string, string> = {};
  // A user-scope kind's credential is part of its identity, when the document names one.
  const userCredential = def.userScope && typeof metadata.credentials === 'string' ? metadata.credentials : undefined;
  const reported = (key: string) => errors.some((e) => e.path === `metadata.${key}`);
  for (const key of def.scopeKeys) {
    const value = metadata[key];
    if (typeof value === 'string' && value !== '') {
      scope[key] = value;
      // Each value becomes a path segment of the kind's calls: it must be one the provider could have formed.
      const problem = reported(key) ? undefined : checkScopeValue(key, value);
      if (problem !== undefined) errors.push(errorAt(['metadata', key], problem));
    } else if (!reported(key) && !(value === undefined && def.optionalScope?.includes(key))) {
      errors.push(errorAt(['metadata', key], `${def.kind} needs metadata.${key}: a non-empty string`, value === undefined ? 'key' : 'value'));
    }
  }
  // An adopted id goes into the path of the kind's updates (a list's, a token's).
  if (typeof metadata.id === 'string' && !reported('id')) {
    const problem = checkAdoptedId(def.kind, metadata.id);
    if (problem !== undefined) errors.push(errorAt(['metadata', 'id'], problem));
  }
  const name = metadata.name;
  const readable = typeof name === 'string' && name !== '' && def.scopeKeys.every((k) => scope[k] !== undefined || (metadata[k] === undefined && def.optionalScope?.includes(k)));
  if (userCredential !== undefined) scope.credentials = userCredential;
  const keys = userCredential !== undefined ? [...def.scopeKeys, 'credentials'] : def.scopeKeys;
  const identity: Identity | undefined = readable
    ? { key: detached(identityKey(def.kind, scope, name, keys)), kind: def.kind, name, at: errorAt(['metadata', 'name'], '') }
    : undefined;
  const dependsOn =
    Array.isArray(metadata.dependsOn) && metadata.dependsOn.length
      ? metadata.dependsOn.map((ref, i) => ({ ref, at: errorAt(['metadata', 'dependsOn', i], '') })).filter((d): d is { ref: string; at: ConfigError } => typeof d.ref === 'string')
      : NONE;
  return { scope, identity, dependsOn };
}
