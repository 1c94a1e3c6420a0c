// Where KV pairs come from: inline `spec.pairs`, JSON files and folders under `spec.sources`.
// Every pair is validated as it is collected; problems point at the field or source that holds it.

import { isUtf8 } from 'node:buffer';
import type { BuildContext, FieldPath } from '../kind.js';
import { KV_RULES, preparePair, typeName, type WirePair } from './pair.js';

/** Problems reported per source before the rest are only counted: a million bad pairs help no one. */
export const MAX_PROBLEMS_PER_SOURCE = 100;

export interface KvSourceSpec {
  readonly file?: string;
  readonly dir?: string;
  readonly prefix?: string;
}

/** Where a pair was defined, for messages: `label(i)` → "spec.pairs[3]", "pairs.json[12]", "static/a.txt". */
export interface Origin {
  /** The source as a whole: "spec.pairs", "pairs.json", "static/". */
  readonly name: string;
  readonly path: FieldPath;
  label(item: number): string;
  /** Position of one pair's field, for inline pairs; sources report at the source's field. */
  fieldPath(item: number, field: string): FieldPath;
}

/** Pairs of every source in collection order, with parallel hashes, sizes and origins. */
export class PairCollector {
  readonly pairs: WirePair[] = [];
  readonly hashes: string[] = [];
  readonly sizes: number[] = [];
  /** Index into `origins` and item number within it, per pair. */
  readonly origin: number[] = [];
  readonly item: number[] = [];
  readonly origins: Origin[] = [];

  /** An absolute expiration must be at least the minimum TTL ahead of when the config is loaded. */
  private readonly minExpiration: number;

  constructor(private readonly ctx: BuildContext) {
    this.minExpiration = Math.floor(ctx.now() / 1000) + KV_RULES.minTtl;
  }

  /** Collects the pairs of one origin, reporting at most MAX_PROBLEMS_PER_SOURCE problems. */
  collect(origin: Origin, items: readonly unknown[]): void {
    const o = this.origins.push(origin) - 1;
    let problems = 0;
    let at = 0;
    const problem = (field: string, message: string): void => {
      if (++problems > MAX_PROBLEMS_PER_SOURCE) return;
      const inline = origin.fieldPath(at, field);
      this.ctx.issue(inline, inline === origin.path ? `${origin.label(at)}${field ? `.${field}` : ''}: ${message}` : message);
    };
    for (; at < items.length; at++) {
      const prepared = preparePair(items[at], problem, KV_RULES.maxRequestBytes, this.minExpiration);
      if (!prepared) continue;
      this.pairs.push(prepared.pair);
      this.hashes.push(prepared.hash);
      this.sizes.push(prepared.size);
      this.origin.push(o);
      this.item.push(at);
    }
    if (problems > MAX_PROBLEMS_PER_SOURCE) {
      this.ctx.issue(origin.path, `… and ${(problems - MAX_PROBLEMS_PER_SOURCE).toLocaleString('en-US')} more problems in ${origin.name}`);
    }
  }

  /** The origin of the pair at collection index `i`, as a person reads it. */
  describe(i: number): string {
    return this.origins[this.origin[i]].label(this.item[i]);
  }

  /** Where to report a problem of the pair at collection index `i` as a whole. */
  pathOf(i: number): FieldPath {
    return this.origins[this.origin[i]].fieldPath(this.item[i], 'key');
  }
}

export function collectInline(c: PairCollector, pairs: readonly unknown[]): void {
  c.collect(
    { name: 'spec.pairs', path: ['spec', 'pairs'], label: (i) => `spec.pairs[${i}]`, fieldPath: (i, field) => (field ? ['spec', 'pairs', i, field] : ['spec', 'pairs', i]) },
    pairs,
  );
}

/** Position of `offset` in `text` as "line:col", both from 1. */
function lineCol(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `${line}:${offset - start + 1}`;
}

/** The text of a JSON source, BOM dropped; the Buffer is let go before parsing (it can be big). */
function readText(ctx: BuildContext, ref: string, path: FieldPath): string | undefined {
  const buf = ctx.readFile(ref, path);
  if (!buf) return undefined;
  if (!isUtf8(buf)) return ctx.issue(path, `${ref}: not valid UTF-8`), undefined;
  const text = buf.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * V8's message without its excerpt of the file (`Unexpected token 'x', "…" is not valid JSON`): the excerpt
 * may hold line breaks and values, and the position says more.
 */
function jsonProblem(raw: string, text: string): { message: string; position?: number } {
  const at = /position (\d+)/.exec(raw);
  if (at) return { message: raw, position: Number(at[1]) };
  // The excerpt is the text from 10 characters before the error to 10 after, `...` where it was cut.
  const m = /^(Unexpected token '(.)'), (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(raw);
  if (!m) return { message: raw.replace(/\s+/g, ' ') };
  const [, message, token, cut, excerpt] = m;
  const start = text.indexOf(excerpt);
  if (start < 0) return { message };
  const offset = cut ? 10 : excerpt.lastIndexOf(token, 10);
  return offset < 0 ? { message } : { message, position: start + offset };
}

/** Reads a JSON file of `[{key, value, …}]`: parsed once, its objects become the wire pairs. */
export function collectJsonFile(c: PairCollector, ctx: BuildContext, s: number, ref: string): void {
  const path: FieldPath = ['spec', 'sources', s, 'file'];
  const text = readText(ctx, ref, path);
  if (text === undefined) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const { message, position } = jsonProblem((e as Error).message, text);
    return ctx.issue(path, `${ref}${position !== undefined ? `:${lineCol(text, position)}` : ''}: not valid JSON: ${message}`);
  }
  if (!Array.isArray(parsed)) return ctx.issue(path, `${ref}: expected a list of pairs [{key, value, …}], got ${typeName(parsed)}`);
  c.collect({ name: ref, path, label: (i) => `${ref}[${i}]`, fieldPath: () => path }, parsed);
}

/** Every file below `dir` becomes a pair: key = prefix + path with '/'; non-UTF-8 content goes as base64. */
export function collectDir(c: PairCollector, ctx: BuildContext, s: number, dir: string, prefix = ''): void {
  const path: FieldPath = ['spec', 'sources', s, 'dir'];
  const files = ctx.listFiles(dir, path);
  if (!files) return;
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const raws: unknown[] = [];
  const names: string[] = [];
  for (const f of files) {
    const content = ctx.readFile(f.ref, path);
    if (!content) continue;
    names.push(f.rel);
    raws.push(isUtf8(content) ? { key: prefix + f.rel, value: content.toString('utf8') } : { key: prefix + f.rel, value: content.toString('base64'), base64: true });
  }
  c.collect({ name: base, path, label: (i) => `${base}${names[i]}`, fieldPath: () => path }, raws);
}

export function collectSources(c: PairCollector, ctx: BuildContext, sources: readonly KvSourceSpec[]): void {
  sources.forEach((source, s) => {
    if (typeof source.file === 'string') collectJsonFile(c, ctx, s, source.file);
    else if (typeof source.dir === 'string') collectDir(c, ctx, s, source.dir, source.prefix);
    else ctx.issue(['spec', 'sources', s], 'expected {file: pairs.json} or {dir: folder/, prefix?: "…"}');
  });
}
