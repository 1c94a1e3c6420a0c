// The cross-check of what documents write: two documents writing one remote object (or one KV
// key of a namespace) would overwrite each other on every run, so the config is refused.

import type { ConfigError } from './errors.js';
import type { DocumentOutcome } from './document.js';
import { compareStrings, compareUtf8 } from '../util/compare.js';

interface Writer {
  readonly key: string;
  readonly at: ConfigError;
  /** Position among the documents: the later one of a pair carries the error. */
  readonly order: number;
  readonly parts?: () => readonly string[];
}

const OVERWRITE = 'each would overwrite the other on every run';
const SHOWN_PARTS = 3;

const place = ({ file, line, col }: ConfigError): string => `${file}:${line}:${col}`;

/** One error per document writing what an earlier document writes, at the later one, naming both. */
export function sharedTargets(outcomes: readonly DocumentOutcome[]): ConfigError[] {
  const byTarget = new Map<string, Writer[]>();
  outcomes.forEach((o, order) => {
    if (!o.resource) return;
    for (const { target, at } of o.writes ?? []) {
      const writers = byTarget.get(target.what) ?? [];
      writers.push({ key: o.resource.key, at, order, ...(target.parts && { parts: target.parts }) });
      byTarget.set(target.what, writers);
    }
  });
  const errors: ConfigError[] = [];
  for (const [what, writers] of byTarget) {
    if (writers.length < 2) continue;
    // One identity defined twice is already an error of its own; saying it twice helps nobody.
    if (writers.every((w) => w.parts)) {
      for (const { earlier, later, parts } of sharedParts(writers)) {
        if (earlier.key === later.key) continue;
        const shown = parts
          .slice(0, SHOWN_PARTS)
          .map((p) => JSON.stringify(p))
          .join(', ');
        const more = parts.length > SHOWN_PARTS ? ` and ${parts.length - SHOWN_PARTS} more` : '';
        const which = `${parts.length === 1 ? 'key' : 'keys'} ${shown}${more}`;
        errors.push({
          ...later.at,
          message: `${later.key} writes ${which}, which ${earlier.key} at ${place(earlier.at)} also writes (${what}): ${OVERWRITE}; keep each key in one document`,
        });
      }
      continue;
    }
    const [first, ...rest] = writers;
    for (const w of rest) {
      if (w.key === first.key) continue;
      errors.push({ ...w.at, message: `${w.key} writes the same object as ${first.key} at ${place(first.at)} (${what}): ${OVERWRITE}; keep one document` });
    }
  }
  return errors;
}

/**
 * Parts written by two writers of one target, grouped by pair. The largest writer is never
 * indexed (a namespace of a million keys is searched, not copied): the others' parts go into one
 * map, and each is looked up in the largest one's sorted parts.
 */
function sharedParts(writers: readonly Writer[]): { earlier: Writer; later: Writer; parts: string[] }[] {
  const lists = writers.map((w) => w.parts!());
  let largest = 0;
  for (let i = 1; i < lists.length; i++) if (lists[i].length > lists[largest].length) largest = i;
  const pairs = new Map<string, { earlier: Writer; later: Writer; parts: string[] }>();
  const found = (a: Writer, b: Writer, part: string) => {
    const [earlier, later] = a.order < b.order ? [a, b] : [b, a];
    const id = `${earlier.order}/${later.order}`;
    const pair = pairs.get(id) ?? { earlier, later, parts: [] };
    pair.parts.push(part);
    pairs.set(id, pair);
  };
  const owner = new Map<string, Writer>();
  writers.forEach((w, i) => {
    if (i === largest) return;
    for (const part of lists[i]) {
      const first = owner.get(part);
      if (first) found(first, w, part);
      else owner.set(part, w);
    }
  });
  const big = lists[largest];
  for (const [part, w] of owner) if (sortedHas(big, part)) found(w, writers[largest], part);
  return [...pairs.values()].map((p) => ({ ...p, parts: p.parts.sort(compareStrings) })).sort((a, b) => a.later.order - b.later.order || a.earlier.order - b.earlier.order);
}

/** Binary search in parts sorted by UTF-8 bytes (WriteTarget.parts). */
function sortedHas(sorted: readonly string[], part: string): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === part) return true;
    if (compareUtf8(v, part) < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
