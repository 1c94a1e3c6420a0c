// Where a KvPairs document's pairs come from, in reading order: inline pairs, JSON and JSON Lines
// files (read as streams), folders whose files become pairs. Read once to plan and again to send.

import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import type { BuildContext, FieldPath } from '../kind.js';
import { pairItems, type ItemPosition, type SourceItem } from './stream.js';

export type { SourceItem } from './stream.js';

export interface KvSourceSpec {
  readonly file?: string;
  readonly jsonl?: string;
  readonly dir?: string;
  readonly prefix?: string;
}

/** A file as the plan read it: another size, time or inode at send time means it changed. */
interface Stamp {
  readonly file: string;
  readonly shown: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export interface PairOrigin {
  /** As messages name the source as a whole: "spec.pairs", "pairs.json", "static/". */
  readonly name: string;
  /** The document field problems of the source are reported at. */
  readonly path: FieldPath;
  /** One item as a person finds it: "spec.pairs[3]", "pairs.json[12]", "pairs.jsonl:13", "static/a.txt". */
  label(item: ItemPosition): string;
  /** Where a problem of one item's field is reported: its own field inline, the source's field otherwise. */
  fieldPath(item: number, field: string): FieldPath;
  /**
   * The items in order, read as they are iterated (a file a chunk at a time); those `skip` names come unread (value
   * undefined); a JSON Lines file hands those `raw` names as their bytes, unparsed (SourceItem.bytes).
   */
  items(skip?: (index: number) => boolean, raw?: (index: number) => boolean): Generator<SourceItem>;
  /** Where item `index` stands, for a message: a JSON Lines file is read up to it for its line. */
  locate(index: number): ItemPosition;
  /** Why a file read to plan is not the one there now, or undefined. */
  changed(): string | undefined;
  /** A JSON or JSON Lines file, which a reader thread can read on its own: its path, format and name in messages. */
  readonly stream?: { readonly file: string; readonly format: 'json' | 'jsonl'; readonly name: string };
}

function stampOf(file: string, shown: string): Stamp {
  const s = fs.statSync(file);
  // Whole milliseconds: what every file system and `touch` keep; a rewrite within one is left to the pairs' hashes.
  return { file, shown, size: s.size, mtimeMs: Math.floor(s.mtimeMs), ino: s.ino };
}

function stampChanged(stamps: readonly Stamp[]): string | undefined {
  for (const was of stamps) {
    let now: Stamp;
    try {
      now = stampOf(was.file, was.shown);
    } catch {
      return `${was.shown} is gone since the plan`;
    }
    if (now.size !== was.size || now.mtimeMs !== was.mtimeMs || now.ino !== was.ino) return `${was.shown} changed since the plan`;
  }
  return undefined;
}

function inlineOrigin(items: readonly unknown[]): PairOrigin {
  return {
    name: 'spec.pairs',
    path: ['spec', 'pairs'],
    label: ({ index }) => `spec.pairs[${index}]`,
    fieldPath: (i, field) => (field ? ['spec', 'pairs', i, field] : ['spec', 'pairs', i]),
    *items() {
      for (let index = 0; index < items.length; index++) yield { value: items[index], index, line: 0 };
    },
    locate: (index) => ({ index, line: 0 }),
    changed: () => undefined,
  };
}

function fileOrigin(ctx: BuildContext, s: number, ref: string, format: 'json' | 'jsonl'): PairOrigin | undefined {
  const path: FieldPath = ['spec', 'sources', s, format === 'json' ? 'file' : 'jsonl'];
  const found = ctx.streamFile(ref, path);
  if (!found) return undefined;
  const stamp = stampOf(found.path, ref);
  return {
    name: ref,
    path,
    label: (at) => (format === 'json' ? `${ref}[${at.index}]` : `${ref}:${at.line}`),
    fieldPath: () => path,
    items: (skip, raw) => pairItems(found.path, format, ref, { ...(skip && { skip }), ...(raw && { raw }) }),
    locate(index) {
      if (format === 'json') return { index, line: 0 };
      for (const item of pairItems(found.path, format, ref)) if (item.index === index) return item;
      return { index, line: 0 };
    },
    changed: () => stampChanged([stamp]),
    stream: { file: found.path, format, name: ref },
  };
}

/** Every file below `dir` becomes a pair: key = prefix + path with '/'; non-UTF-8 content goes as base64. */
function dirOrigin(ctx: BuildContext, s: number, dir: string, prefix = ''): PairOrigin | undefined {
  const path: FieldPath = ['spec', 'sources', s, 'dir'];
  const listed = ctx.listFiles(dir, path);
  if (!listed) return undefined;
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const files: { rel: string; file: string }[] = [];
  for (const f of listed) {
    const found = ctx.streamFile(f.ref, path);
    if (found) files.push({ rel: f.rel, file: found.path });
  }
  const stamps = files.map((f) => stampOf(f.file, `${base}${f.rel}`));
  return {
    name: base,
    path,
    label: ({ index }) => `${base}${files[index]?.rel ?? index}`,
    fieldPath: () => path,
    *items(skip) {
      for (let index = 0; index < files.length; index++) {
        if (skip?.(index)) {
          yield { value: undefined, index, line: 0 };
          continue;
        }
        const content = fs.readFileSync(files[index].file);
        const key = prefix + files[index].rel;
        const value = isUtf8(content) ? { key, value: content.toString('utf8') } : { key, value: content.toString('base64'), base64: true };
        yield { value, index, line: 0 };
      }
    },
    locate: (index) => ({ index, line: 0 }),
    changed: () => stampChanged(stamps),
  };
}

/** The document's origins in reading order: inline pairs first, then the sources as listed. */
export function originsOf(ctx: BuildContext, spec: { readonly pairs?: readonly unknown[]; readonly sources?: readonly KvSourceSpec[] } | undefined): PairOrigin[] {
  const out: PairOrigin[] = [];
  if (Array.isArray(spec?.pairs)) out.push(inlineOrigin(spec.pairs));
  if (!Array.isArray(spec?.sources)) return out;
  spec.sources.forEach((source, s) => {
    const origin =
      typeof source.file === 'string'
        ? fileOrigin(ctx, s, source.file, 'json')
        : typeof source.jsonl === 'string'
          ? fileOrigin(ctx, s, source.jsonl, 'jsonl')
          : typeof source.dir === 'string'
            ? dirOrigin(ctx, s, source.dir, source.prefix)
            : void ctx.issue(['spec', 'sources', s], 'expected {file: pairs.json}, {jsonl: pairs.jsonl} or {dir: folder/, prefix?: "…"}');
    if (origin) out.push(origin);
  });
  return out;
}
