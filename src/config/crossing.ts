// A document's outcome as it crosses from a load's helper thread, and back: a Credentials
// document's locator as the places of its fields, a payload only when it is plain data.

import type { FieldPath } from '../kinds/kind.js';
import type { DocumentOutcome } from './document.js';
import { fieldPath, type ConfigError } from './errors.js';
import type { DocumentLocator, ParsedDocument, Position } from './yaml.js';

/** An outcome as it crosses: a Credentials document's `at` as its places. */
export type SentOutcome = Omit<DocumentOutcome, 'at'> & { readonly places?: Places };

/**
 * What crosses of an outcome; undefined when it cannot: a payload that is not plain data (a KV
 * payload holds open files and sorted runs), whose document the main thread builds again.
 */
export function toSent(outcome: DocumentOutcome, doc: ParsedDocument): SentOutcome | undefined {
  const payload = outcome.resource?.payload;
  if (payload !== undefined && !isPlain(payload, 0)) return undefined;
  if (outcome.at === undefined) return outcome;
  const { at: _at, ...rest } = outcome;
  return { ...rest, places: placesOf(doc.value, doc.locator) };
}

/** The outcome the main thread would have built, from what crossed (a Buffer crosses as a Uint8Array). */
export function fromSent(sent: SentOutcome, display: string): DocumentOutcome {
  const { places, ...outcome } = sent;
  const resource = outcome.resource?.payload === undefined ? outcome.resource : { ...outcome.resource, payload: revived(outcome.resource.payload) };
  return { ...outcome, resource, ...(places && { at: errorAtPlaces(places, display) }) };
}

/** Plain objects and arrays, Buffers, and JSON's scalars; payloads are shallow. */
function isPlain(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint';
  if (depth > 32) return false;
  if (Buffer.isBuffer(value)) return true;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype) return false;
  return Object.values(value).every((v) => isPlain(v, depth + 1));
}

function revived(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(revived);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revived(v)]));
}

/** [path's steps joined by NUL, line, col] for the document and every field in it. */
export type Places = readonly (readonly [string, number, number])[];

const stepsKey = (path: readonly (string | number)[], n: number): string => path.slice(0, n).map(String).join('\u0000');

/** Every field of `value` placed as `locator.value` places it. */
export function placesOf(value: unknown, locator: DocumentLocator): Places {
  const out: [string, number, number][] = [];
  const path: (string | number)[] = [];
  const walk = (v: unknown): void => {
    const { line, col } = locator.value(path);
    out.push([stepsKey(path, path.length), line, col]);
    if (v === null || typeof v !== 'object') return;
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      path.push(k);
      walk(child);
      path.pop();
    }
  };
  walk(value);
  return out;
}

/**
 * The error maker the document's locator gave (DocumentOutcome.at), from its places: a path that
 * is not in the document is placed at its nearest ancestor that is, as the locator does.
 */
export function errorAtPlaces(places: Places, display: string): (path: FieldPath, message: string) => ConfigError {
  const table = new Map<string, Position>(places.map(([k, line, col]) => [k, { line, col }]));
  return (path, message) => {
    for (let n = path.length; n >= 0; n--) {
      const at = table.get(stepsKey(path, n));
      if (at) return { file: display, line: at.line, col: at.col, path: fieldPath(path), message };
    }
    return { file: display, line: 1, col: 1, path: fieldPath(path), message };
  };
}
