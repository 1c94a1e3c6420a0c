// YAML text → plain values with a map from every field to its line:col, interpolated as it goes.
// Aliases are expanded here under a node budget, so an alias bomb stops early, at its position.

import { type Alias, Composer, LineCounter, Parser, isAlias, isMap, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import type { FieldPath, SourceLocation } from '../kinds/kind.js';
import { detached } from '../util/json.js';
import { withPlainEnv } from '../util/plain-env.js';
import type { TurnClock } from '../util/turn.js';
import { interpolate, type Env } from './interpolate.js';
import { describeYamlErrors } from './yaml-messages.js';

export interface Position {
  readonly line: number;
  readonly col: number;
}

export interface LocatedProblem extends Position {
  readonly path: FieldPath;
  readonly message: string;
}

/** Where a field is written; `from`: another file than the document's own (an environment's overlay, ./overlays.ts). */
export interface Placed extends Position {
  readonly from?: { readonly file: string; readonly display: string };
}

/** Where each field of one document is written: its value, and its key for map members. */
export interface DocumentLocator {
  readonly start: Position;
  /** Where the value at `path` is written (else its nearest written ancestor). */
  value(path: FieldPath): Placed;
  /** Where the key of the member at `path` is written; the value's place for list items. */
  key(path: FieldPath): Placed;
  /** Where character `index` of the one-line string at `path` (reading as `value`) is written; undefined where that cannot be said. */
  within(path: FieldPath, value: string, index: number): Placed | undefined;
}

/**
 * A document's places found in its nodes when asked (a few times a document), not recorded for every
 * field as it is walked.
 */
class Locator implements DocumentLocator {
  constructor(
    private readonly lines: LineCounter,
    private readonly root: YamlNode,
    private readonly startOffset: number,
    private readonly text: string,
  ) {}

  get start(): Position {
    return this.lines.linePos(this.startOffset);
  }

  /** Where the value at `path` is written (else its nearest written ancestor). */
  value(path: FieldPath): Position {
    return this.find(path, false);
  }

  /** Where the key of the member at `path` is written; the value's place for list items. */
  key(path: FieldPath): Position {
    return this.find(path, true);
  }

  /**
   * Where character `index` of the string at `path` is written, when that string is one line of a plain or
   * quoted scalar whose text reads as `value` (escapes undone); undefined otherwise (a block scalar, a
   * string over several lines, one `${NAME}` changed), for the caller to place it at the value.
   */
  within(path: FieldPath, value: string, index: number): Position | undefined {
    const node = nodeAt(this.root, path);
    if (!isScalar(node) || !node.range || index < 0 || index > value.length) return undefined;
    const [start, end] = node.range;
    const written = this.text.slice(start, end);
    if (written.includes('\n')) return undefined;
    const starts =
      node.type === 'PLAIN'
        ? plainStarts(written)
        : node.type === 'QUOTE_SINGLE'
          ? singleQuotedStarts(written)
          : node.type === 'QUOTE_DOUBLE'
            ? doubleQuotedStarts(written)
            : undefined;
    if (!starts || starts.read !== value) return undefined;
    return this.lines.linePos(start + starts.at[index]!);
  }

  private find(path: FieldPath, preferKey: boolean): Position {
    for (let n = path.length; n >= 0; n--) {
      const at = (preferKey ? placed(this.root, path, n, true) : undefined) ?? placed(this.root, path, n, false) ?? placed(this.root, path, n, true);
      if (at !== undefined) return this.lines.linePos(at);
    }
    return this.start;
  }
}

/**
 * The offset of the value (or, with `key`, of the member's key) at the first `n` steps of `path`, as
 * the walk places fields: nothing inside an expanded alias (it is placed at the alias), nothing under
 * a key that is not plain text; a key and an index written alike are one step, and of members whose
 * keys read alike, the last one in the document that has the field is the one placed.
 */
function placed(node: unknown, path: FieldPath, n: number, key: boolean, i = 0): number | undefined {
  if (node === null || node === undefined) return undefined;
  if (i === n) return key ? undefined : (node as YamlNode).range?.[0];
  if (isAlias(node)) return undefined;
  const step = String(path[i]);
  if (isSeq(node)) {
    const index = Number(step);
    if (!/^(0|[1-9]\d*)$/.test(step) || index >= node.items.length) return undefined;
    return i + 1 === n && key ? undefined : placed(node.items[index], path, n, key, i + 1);
  }
  if (!isMap(node)) return undefined;
  const offset = node.range?.[0] ?? 0;
  const pairs = node.items as readonly { key: unknown; value: unknown }[];
  for (let p = pairs.length - 1; p >= 0; p--) {
    const keyNode = pairs[p]!.key as YamlNode | null;
    if (keyNode !== null && !isScalar(keyNode)) continue;
    if ((keyNode === null || keyNode.value === null ? '' : String(keyNode.value)) !== step) continue;
    const at = i + 1 === n && key ? (keyNode?.range?.[0] ?? offset) : placed(pairs[p]!.value, path, n, key, i + 1);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** The node of the value at `path`, as `placed` finds it. */
function nodeAt(node: unknown, path: FieldPath): unknown {
  let at = node;
  for (const step of path.map(String)) {
    if (isSeq(at)) at = /^(0|[1-9]\d*)$/.test(step) ? at.items[Number(step)] : undefined;
    else if (isMap(at)) at = (at.items as readonly { key: unknown; value: unknown }[]).findLast((p) => isScalar(p.key) && String(p.key.value ?? '') === step)?.value;
    else return undefined;
  }
  return at;
}

/** A string as read, and where each of its characters (and its end) starts in the written text. */
interface Read {
  readonly read: string;
  readonly at: readonly number[];
}

function plainStarts(written: string): Read {
  return { read: written, at: Array.from({ length: written.length + 1 }, (_, i) => i) };
}

/** 'it''s': a doubled quote reads as one. */
function singleQuotedStarts(written: string): Read {
  let read = '';
  const at: number[] = [];
  for (let i = 1; i < written.length - 1; i++) {
    at.push(i);
    read += written[i];
    if (written[i] === "'") i++;
  }
  return { read, at: [...at, written.length - 1] };
}

/** "a \"b\" \u00e9": each escape reads as what it stands for; one not known here reads as nothing, so the caller falls back. */
function doubleQuotedStarts(written: string): Read {
  const simple: Record<string, string> = {
    '0': '\0',
    a: '\x07',
    b: '\b',
    t: '\t',
    '\t': '\t',
    n: '\n',
    v: '\v',
    f: '\f',
    r: '\r',
    e: '\x1b',
    ' ': ' ',
    '"': '"',
    '/': '/',
    '\\': '\\',
    N: '\u0085',
    _: '\u00a0',
    L: '\u2028',
    P: '\u2029',
  };
  const hex: Record<string, number> = { x: 2, u: 4, U: 8 };
  let read = '';
  const at: number[] = [];
  for (let i = 1; i < written.length - 1; i++) {
    const c = written[i]!;
    let out = c;
    const from = i;
    if (c === '\\') {
      const e = written[i + 1]!;
      if (e in hex) {
        const code = Number.parseInt(written.slice(i + 2, i + 2 + hex[e]!), 16);
        out = code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
        i += 1 + hex[e]!;
      } else {
        out = simple[e] ?? '';
        i += 1;
      }
    }
    for (let k = 0; k < out.length; k++) at.push(from);
    read += out;
  }
  return { read, at: [...at, written.length - 1] };
}

export interface ParsedDocument {
  readonly value: unknown;
  readonly locator: DocumentLocator;
  /** Where the overlay merged into this document starts, when an environment's overlay was (./overlays.ts). */
  readonly overlay?: SourceLocation;
  /** Unset variables and the like: the document is still usable for reporting, not for building. */
  readonly problems: readonly LocatedProblem[];
}

export interface ParsedFile {
  readonly documents: readonly ParsedDocument[];
  /** Syntax errors and refused alias expansions; those documents are left out. */
  readonly errors: readonly LocatedProblem[];
}

export interface ParseLimits {
  /** Nodes produced by expanding aliases, per document. */
  readonly maxAliasNodes: number;
  /** Levels of nested lists and maps; deeper is refused at the first node past it. */
  readonly maxDepth: number;
}

/** Tags the YAML core schema resolves (!!str, !!int, !!binary, !!timestamp…) are read; any other is an error. */
const UNKNOWN_TAG = 'TAG_RESOLVE_FAILED';

/**
 * Parses every document of a YAML stream; empty documents (a trailing `---`) are skipped. Each
 * string is copied out of the text (see detached): a loaded config outlives its files' texts (the
 * daemon keeps the last good one, with or without a loader's cache).
 */
export function parseYaml(text: string, env: Env, limits: ParseLimits): ParsedFile {
  const documents: ParsedDocument[] = [];
  const errors = parseYamlEach(text, env, limits, (doc) => void documents.push(doc));
  return { documents, errors };
}

/**
 * As parseYaml, each document handed to `each` as soon as it is read, before the next is parsed:
 * its YAML nodes (a few hundred KiB for a document of 280 bytes) die young, instead of living, and
 * being copied to the old generation, while the rest of the file is parsed. 0.6 s less of 4.6 s
 * for 50,000 documents, and half the time collecting garbage. Returns the stream's problems:
 * syntax errors and refused alias expansions, whose documents are not handed over.
 *
 * `each` runs while `process.env` is a plain copy (see withPlainEnv): it must not set variables.
 */
function parseYamlEach(text: string, env: Env, limits: ParseLimits, each: (doc: ParsedDocument) => void): readonly LocatedProblem[] {
  const stream = documentsOf(text, env, limits);
  withPlainEnv(() => stream.read(each, () => false));
  return stream.errors;
}

/**
 * As parseYamlEach, with a turn of the event loop between two documents whenever `turns` says one is due:
 * a file of thousands of documents no longer holds the loop for the whole of its parse. During a turn
 * `process.env` is the real one again.
 */
export async function parseYamlInTurns(text: string, env: Env, limits: ParseLimits, each: (doc: ParsedDocument) => void, turns: TurnClock): Promise<readonly LocatedProblem[]> {
  const stream = documentsOf(text, env, limits);
  const plain = { ...process.env };
  while (!withPlainEnv(() => stream.read(each, () => turns.due()), plain)) await turns.turn();
  return stream.errors;
}

/** A stream's documents read on demand: `read` hands them to `each` until `stop` says so (false) or the stream ends (true). */
function documentsOf(text: string, env: Env, limits: ParseLimits) {
  const lines = new LineCounter();
  const errors: LocatedProblem[] = [];
  // parseAllDocuments is these two, its documents gathered in an array first.
  const composer = new Composer({ lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const docs = composer.compose(new Parser(lines.addNewLine).parse(text));
  const read = (each: (doc: ParsedDocument) => void, stop: () => boolean): boolean => {
    for (;;) {
      const next = docs.next();
      if (next.done) return true;
      const parsed = readDocument(next.value, text, lines, env, limits, errors);
      if (parsed) each(parsed);
      if (stop()) return false;
    }
  };
  return { errors, read };
}

function readDocument(doc: Document.Parsed, text: string, lines: LineCounter, env: Env, limits: ParseLimits, errors: LocatedProblem[]): ParsedDocument | undefined {
  if (doc.errors.length) {
    // In plain words with the fix, at the line of the mistake (./yaml-messages.ts).
    for (const p of describeYamlErrors(doc.errors, text, lines, (e) => parseProblem(e.code, e.message, limits)))
      errors.push({ line: p.line, col: p.col, path: [], message: p.message });
    return undefined;
  }
  for (const w of doc.warnings) {
    if (w.code !== UNKNOWN_TAG) continue;
    const tag = /tag: (\S+)/.exec(w.message)?.[1] ?? 'this tag';
    errors.push({ ...lines.linePos(w.pos[0]), path: [], message: `unknown tag ${tag}: edgesync reads plain YAML values; remove the tag` });
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null && !doc.contents.source)) return undefined;
  const walker = new Walker(doc, env, limits);
  try {
    let value: unknown;
    try {
      value = walker.walk(doc.contents);
    } catch (err) {
      if (!(err instanceof TooDeep)) throw err;
      const deep = walker.problems.at(-1)!;
      errors.push({ ...lines.linePos(deep.offset), path: deep.path, message: deep.message });
      return undefined;
    }
    const locator = new Locator(lines, doc.contents, doc.contents.range?.[0] ?? 0, text);
    const problems = walker.problems.map((p) => ({ ...lines.linePos(p.offset), path: p.path, message: p.message }));
    return { value, locator, problems };
  } catch (err) {
    if (!(err instanceof AliasBudgetExceeded)) throw err;
    errors.push({ ...lines.linePos(err.offset), path: err.path, message: err.message });
    return undefined;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/** The parser's own stack runs out on very deep nesting: said as the depth bound it is past. */
function parseProblem(code: string, message: string, limits: ParseLimits): string {
  return code === 'RESOURCE_EXHAUSTION' && /call stack/.test(message) ? depthMessage(limits.maxDepth) : firstLine(message);
}

function depthMessage(maxDepth: number): string {
  return `nested deeper than ${maxDepth} levels of lists and maps: refused`;
}

/** Tagged scalars (`!!binary`, timestamps) become the JSON text a schema can check. */
function plainScalar(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** Unwinds the walk of a document nested past the bound; its problem is already recorded. */
class TooDeep extends Error {}

class AliasBudgetExceeded extends Error {
  constructor(
    readonly offset: number,
    readonly path: FieldPath,
    limit: number,
  ) {
    super(`alias expands past ${limit} nodes (a YAML alias bomb?): refused`);
  }
}

/**
 * The walk keeps one path, a step pushed on the way down and popped on the way up; a problem takes a
 * copy of it. Fields are not placed here: Locator finds the few it is asked for.
 */
class Walker {
  readonly problems: { offset: number; path: FieldPath; message: string }[] = [];
  private aliasNodes = 0;
  private outerAlias: { offset: number; path: FieldPath } | undefined;
  private readonly expanding = new Set<YamlNode>();
  private readonly resolved = new Map<Alias, YamlNode | null>();
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly doc: Document,
    private readonly env: Env,
    private readonly limits: ParseLimits,
  ) {}

  walk(node: unknown): unknown {
    if (node === null || node === undefined) return null;
    const offset = (node as YamlNode).range?.[0];
    const path = this.path;
    if (path.length > this.limits.maxDepth) {
      this.problems.push({ offset: offset ?? 0, path: [...path], message: depthMessage(this.limits.maxDepth) });
      throw new TooDeep();
    }
    if (this.outerAlias && ++this.aliasNodes > this.limits.maxAliasNodes) {
      throw new AliasBudgetExceeded(this.outerAlias.offset, this.outerAlias.path, this.limits.maxAliasNodes);
    }
    if (isAlias(node)) return this.expand(node, offset ?? 0);
    if (isScalar(node)) {
      if (typeof node.value !== 'string') return plainScalar(node.value);
      const { value, problems } = interpolate(node.value, this.env);
      for (const message of problems) this.problems.push({ offset: offset ?? 0, path: [...path], message });
      return detached(value);
    }
    if (isSeq(node)) {
      // Mapped, not pushed: the list is made at its length, without the room a growing array keeps.
      return node.items.map((item, i) => {
        path.push(i);
        const value = this.walk(item);
        path.pop();
        return value;
      });
    }
    if (isMap(node)) return this.walkMap(node.items, offset ?? 0);
    return null;
  }

  private walkMap(items: readonly { key: unknown; value: unknown }[], offset: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const path = this.path;
    for (const pair of items) {
      const keyNode = pair.key as YamlNode | null;
      if (keyNode !== null && !isScalar(keyNode)) {
        this.problems.push({ offset: keyNode.range?.[0] ?? offset, path: [...path], message: 'keys must be plain text, not a list, map or alias' });
        continue;
      }
      const key = keyNode === null || keyNode.value === null ? '' : String(keyNode.value);
      path.push(key);
      const value = this.walk(pair.value);
      path.pop();
      // `__proto__` as a plain assignment would replace the prototype instead of adding a field.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }

  private expand(alias: Alias, offset: number): unknown {
    const path = this.path;
    // Alias.resolve walks the whole document each time: resolve each alias node once.
    let target = this.resolved.get(alias);
    if (target === undefined) this.resolved.set(alias, (target = alias.resolve(this.doc) ?? null));
    if (!target) {
      this.problems.push({ offset, path: [...path], message: `alias *${alias.source} refers to no anchor before it` });
      return null;
    }
    if (this.expanding.has(target)) throw new AliasBudgetExceeded(offset, [...path], this.limits.maxAliasNodes);
    const outermost = this.outerAlias === undefined;
    if (outermost) this.outerAlias = { offset, path: [...path] };
    this.expanding.add(target);
    try {
      return this.walk(target);
    } finally {
      this.expanding.delete(target);
      if (outermost) this.outerAlias = undefined;
    }
  }
}
