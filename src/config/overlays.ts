// An environment (`--env NAME`): the overlay documents of environments/NAME/, each matched to the
// base document of its kind and name, merged over it (./merge-patch.ts) with every value placed where written.

import fs from 'node:fs';
import path from 'node:path';
import type { FieldPath, SourceLocation } from '../kinds/kind.js';
import { getKind } from '../kinds/registry.js';
import { closest, didYouMean } from '../util/closest.js';
import { sha256 } from '../util/json.js';
import { processDocument, type DocumentContext, type DocumentOutcome, type Overlaid } from './document.js';
import { displayFile, fieldPath, type ConfigError } from './errors.js';
import { discover, discoveryErrors, readTextBounded } from './files.js';
import type { Env } from './interpolate.js';
import { isMap, mergePatch, setByPatch } from './merge-patch.js';
import { isSkippedName } from './paths.js';
import { parseYaml, type DocumentLocator, type ParsedDocument, type ParseLimits, type Placed } from './yaml.js';
import { isFolder } from '../util/folder.js';

/** The folder under the config root holding one folder of overlays per environment; never read as base documents. */
export const ENVIRONMENTS_DIR = 'environments';

/** One overlay document: what it selects (kind, name, the scope keys it gives) and what it does. */
interface Overlay {
  readonly file: string;
  readonly display: string;
  readonly parsed: ParsedDocument;
  readonly kind: string;
  readonly name: string;
  /** Scope keys the overlay names (metadata.account…): a base document matches only with the same values. */
  readonly selectors: Readonly<Record<string, string>>;
  /** `$delete: true`: the base document is removed. */
  readonly remove: boolean;
  /** It has apiVersion: matching nothing, it is a new document. */
  readonly complete: boolean;
  /** The merge patch: the document less its selectors and `$delete`. */
  readonly patch: Record<string, unknown>;
  readonly start: SourceLocation;
}

/** An environment's overlays, read at each load (they are few and small), with what went wrong reading them. */
export interface Environment {
  readonly name: string;
  readonly overlays: readonly Overlay[];
  readonly errors: readonly ConfigError[];
  /** The overlay files' content: a cached build of a base file holds only under the same overlays. */
  readonly digest: string;
  /** Overlays by `kind/name`. */
  readonly byName: ReadonlyMap<string, readonly number[]>;
}

interface ReadSettings {
  readonly env: Env;
  readonly maxFileBytes: number;
  readonly limits: ParseLimits;
}

/** environments/NAME/ under `root`: its overlays, or the error saying it is not there (and which are). */
export async function readEnvironment(root: string, name: string, own: readonly string[], settings: ReadSettings): Promise<Environment> {
  const parent = path.join(root, ENVIRONMENTS_DIR);
  const dir = path.join(parent, name);
  const none = (message: string): Environment => ({ name, overlays: [], errors: [{ file: displayFile(dir), line: 1, col: 1, path: '', message }], digest: '', byName: new Map() });
  if (!isFolder(dir)) {
    const known = environmentsIn(parent);
    const listed = known.length ? `; the environments there: ${known.join(', ')}` : `; ${displayFile(parent)}/ holds none`;
    return none(`--env ${name}: no folder ${ENVIRONMENTS_DIR}/${name}/ under the config root${listed}`);
  }
  const found = await discover(dir, own);
  const errors: ConfigError[] = discoveryErrors(found);
  const read: Overlay[] = [];
  const texts: string[] = [];
  for (const file of found.files) {
    const display = displayFile(file);
    const got = await readTextBounded(file, settings.maxFileBytes).catch((err: NodeJS.ErrnoException) => ({
      problem: { line: 1, col: 1, message: `cannot be read (${err.code ?? err.message})` },
    }));
    if ('problem' in got) {
      errors.push({ file: display, ...got.problem, path: '' });
      continue;
    }
    texts.push(file, got.text);
    const parsed = parseYaml(got.text, settings.env, settings.limits);
    for (const e of parsed.errors) errors.push({ file: display, line: e.line, col: e.col, path: fieldPath(e.path), message: e.message });
    for (const doc of parsed.documents) {
      const overlay = readOverlay(doc, file, display, errors);
      if (overlay) read.push(overlay);
    }
  }
  // An overlay selecting what an earlier one selects is refused, and applies nowhere.
  const overlays: Overlay[] = [];
  const byName = new Map<string, number[]>();
  for (const o of read) {
    const same = byName.get(`${o.kind}/${o.name}`) ?? [];
    const twin = same.find((j) => JSON.stringify(overlays[j]!.selectors) === JSON.stringify(o.selectors));
    if (twin !== undefined) {
      errors.push(nameAt(o, `${o.kind}/${o.name} is overlaid twice in this environment: here and at ${where(overlays[twin]!.start)}; keep one`));
      continue;
    }
    byName.set(`${o.kind}/${o.name}`, [...same, overlays.length]);
    overlays.push(o);
  }
  return { name, overlays, errors, digest: sha256(JSON.stringify(texts)), byName };
}

/** The environments under environments/, sorted. */
function environmentsIn(parent: string): string[] {
  try {
    return fs
      .readdirSync(parent, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !isSkippedName(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

const where = (at: SourceLocation): string => `${at.file}:${at.line}:${at.col}`;

/** An error at the overlay's metadata.name (where its target is named). */
function nameAt(o: Overlay, message: string): ConfigError {
  const { line, col } = o.parsed.locator.value(['metadata', 'name']);
  return { file: o.display, line, col, path: 'metadata.name', message };
}

/** The overlay a document is, or undefined after saying why it cannot be one. */
function readOverlay(doc: ParsedDocument, file: string, display: string, errors: ConfigError[]): Overlay | undefined {
  const refuse = (at: FieldPath, message: string): undefined => {
    const { line, col } = doc.locator.value(at);
    errors.push({ file: display, line, col, path: fieldPath(at), message });
    return undefined;
  };
  for (const p of doc.problems) errors.push({ file: display, line: p.line, col: p.col, path: fieldPath(p.path), message: p.message });
  const value = doc.value;
  if (!isMap(value)) return refuse([], 'expected an overlay: kind and metadata.name of the document it changes, then the fields it sets');
  const { kind, metadata } = value;
  if (typeof kind !== 'string' || kind === '') return refuse(['kind'], 'an overlay names the kind of the document it changes: kind is a non-empty string');
  if (!isMap(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    return refuse(isMap(metadata) ? ['metadata', 'name'] : ['metadata'], 'an overlay names the document it changes: metadata.name is a non-empty string');
  }
  const remove = value.$delete;
  if (remove !== undefined && remove !== true) return refuse(['$delete'], `$delete is true (remove the base document) or left out, got ${JSON.stringify(remove)}`);
  const def = getKind(kind);
  const selectorKeys = def ? [...def.scopeKeys, ...(def.userScope ? ['credentials'] : [])] : [];
  const selectors: Record<string, string> = {};
  for (const key of selectorKeys) if (typeof metadata[key] === 'string') selectors[key] = metadata[key];
  if (remove) {
    const extra = Object.keys(value).filter((k) => !['apiVersion', 'kind', 'metadata', '$delete'].includes(k));
    if (extra.length) return refuse([extra[0]!], `a $delete overlay removes the document: it sets nothing, so ${extra[0]} has no place here`);
  }
  const { name, ...restMeta } = metadata;
  for (const key of Object.keys(selectors)) delete restMeta[key];
  const { $delete: _remove, kind: _kind, apiVersion, metadata: _metadata, ...rest } = value;
  const patch: Record<string, unknown> = Object.keys(restMeta).length ? { metadata: restMeta, ...rest } : rest;
  const start = { file: display, ...doc.locator.start };
  return { file, display, parsed: doc, kind, name, selectors, remove: remove === true, complete: apiVersion !== undefined, patch, start };
}

/**
 * A base document's outcome in the environment: as it is when no overlay matches it; none (no resource,
 * no identity) when one removes it; else built from the merge, each value placed in the file that set it.
 */
export function overlaid(environment: Environment, doc: ParsedDocument, file: string, display: string, ctx: DocumentContext): DocumentOutcome | Promise<DocumentOutcome> {
  const value = doc.value;
  const kind = isMap(value) && typeof value.kind === 'string' ? value.kind : undefined;
  const metadata = isMap(value) && isMap(value.metadata) ? value.metadata : undefined;
  const candidates = kind !== undefined && typeof metadata?.name === 'string' ? environment.byName.get(`${kind}/${metadata.name}`) : undefined;
  const by = candidates?.filter((i) => Object.entries(environment.overlays[i]!.selectors).every(([k, v]) => metadata![k] === v)) ?? [];
  if (!by.length) return processDocument(doc, file, display, ctx);
  const start = { file: display, ...doc.locator.start };
  const info: Overlaid = { by, target: `${kind}/${metadata!.name as string} at ${where(start)}` };
  const overlay = environment.overlays[by[0]!]!;
  if (overlay.remove) return { errors: [], dependsOn: [], overlaid: info };
  const merged: ParsedDocument = {
    value: mergePatch(value, overlay.patch),
    locator: new MergedLocator(doc, overlay),
    // The overlay's own problems (an unset variable) are said once, where it was read.
    problems: doc.problems,
    overlay: overlay.start,
  };
  const outcome = processDocument(merged, file, display, ctx);
  return outcome instanceof Promise ? outcome.then((o) => ({ ...o, overlaid: info })) : { ...outcome, overlaid: info };
}

/** Each path of the merged document placed in the overlay where the overlay set it, else in the base. */
class MergedLocator implements DocumentLocator {
  private readonly from: Placed['from'];

  constructor(
    private readonly base: ParsedDocument,
    private readonly overlay: Overlay,
  ) {
    this.from = { file: overlay.file, display: overlay.display };
  }

  get start() {
    return this.base.locator.start;
  }

  value(path: FieldPath): Placed {
    return this.mine(path) ? { ...this.overlay.parsed.locator.value(path), from: this.from } : this.base.locator.value(path);
  }

  key(path: FieldPath): Placed {
    return this.mine(path) ? { ...this.overlay.parsed.locator.key(path), from: this.from } : this.base.locator.key(path);
  }

  within(path: FieldPath, value: string, index: number): Placed | undefined {
    if (!this.mine(path)) return this.base.locator.within(path, value, index);
    const exact = this.overlay.parsed.locator.within(path, value, index);
    return exact && { ...exact, from: this.from };
  }

  /** A map both hold is placed in the base when the base has it. */
  private mine(path: FieldPath): boolean {
    return setByPatch(this.overlay.patch, path, !has(this.base.value, path));
  }
}

function has(value: unknown, path: FieldPath): boolean {
  let at = value;
  for (const step of path) {
    if (Array.isArray(at) && typeof step === 'number' && step < at.length) at = at[step];
    else if (isMap(at) && Object.hasOwn(at, String(step))) at = at[String(step)];
    else return false;
  }
  return true;
}

/**
 * After the base is built: an overlay that matched nothing is a new document when complete, else an
 * error at its place; one that matched two documents, or met another on one document, is an error too.
 */
export async function unmatchedOverlays(
  environment: Environment,
  outcomes: readonly DocumentOutcome[],
  ctx: DocumentContext,
): Promise<{ readonly errors: readonly ConfigError[]; readonly added: readonly DocumentOutcome[] }> {
  const errors: ConfigError[] = [...environment.errors];
  const added: DocumentOutcome[] = [];
  const targets = environment.overlays.map((): string[] => []);
  const names = new Map<string, string[]>();
  for (const o of outcomes) {
    if (o.identity) names.set(o.identity.kind, [...(names.get(o.identity.kind) ?? []), o.identity.name]);
    if (!o.overlaid) continue;
    const [first, ...more] = o.overlaid.by;
    for (const i of o.overlaid.by) targets[i]!.push(o.overlaid.target);
    for (const i of more)
      errors.push(nameAt(environment.overlays[i]!, `overlays ${o.overlaid.target} as the overlay at ${where(environment.overlays[first!]!.start)} does: merge the two`));
  }
  for (const [i, overlay] of environment.overlays.entries()) {
    const matched = targets[i]!;
    if (matched.length > 1) {
      const scopeKeys = getKind(overlay.kind)?.scopeKeys ?? [];
      const keys = scopeKeys.length ? ` (give its metadata.${scopeKeys.join(', metadata.')} to say which)` : '';
      errors.push(nameAt(overlay, `matches ${matched.length} documents of the base: ${matched.join('; ')}${keys}`));
    } else if (matched.length === 0) {
      if (overlay.complete && !overlay.remove) {
        const outcome = await processDocument(overlay.parsed, overlay.file, overlay.display, ctx);
        added.push(outcome);
      } else {
        const close = closest(overlay.name, names.get(overlay.kind) ?? []);
        const selected = Object.entries(overlay.selectors).map(([k, v]) => ` with ${k} ${v}`);
        const fix = overlay.remove ? '' : '; a new document is written whole, with apiVersion: edgesync/v1';
        const what = overlay.remove ? 'deletes nothing' : 'patches nothing';
        errors.push(nameAt(overlay, `${what}: the base has no ${overlay.kind} named "${overlay.name}"${selected.join('')}${close.length ? didYouMean(close) : fix}`));
      }
    }
  }
  return { errors, added };
}
