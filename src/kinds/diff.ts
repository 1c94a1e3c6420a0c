// Field-level diffs between canonical requests, and the small JSON helpers the kinds share.
// Sensitive fields appear in a diff by path only: their values never leave the kind.

import { canonicalJson, type Json } from '../util/json.js';
import type { FieldChange } from './kind.js';

type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * True when `a` and `b` are the same plain JSON (any key order), without writing either out: then
 * sameJson holds too. False also when in doubt (an undefined member, NaN, a non-plain object), for
 * sameJson or diffJson to settle.
 */
function plainlyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return a !== undefined;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!plainlyEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    const x = (a as Record<string, unknown>)[key];
    if (x === undefined || !plainlyEqual(x, (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Copies an object without its undefined members, so it is valid Json. */
export function compact(value: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v as Json;
  return out;
}

export function omit(value: Json | undefined, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  if (!isObject(value)) return out;
  for (const [key, v] of Object.entries(value)) if (!keys.includes(key)) out[key] = v;
  return out;
}

export function pick(value: Json | undefined, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  if (!isObject(value)) return out;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

/**
 * Changes from `before` to `after`, one per leaf that differs; objects and arrays are walked so
 * a renderer can show "login_design.text_color" rather than the whole organization.
 */
export function diffJson(before: Json | undefined, after: Json | undefined, isSensitive: (path: string) => boolean = () => false, prefix = ''): FieldChange[] {
  // An unchanged request, the common case, is told without walking it field by field.
  if (plainlyEqual(before, after)) return [];
  const both = (isObject(before) && isObject(after)) || (Array.isArray(before) && Array.isArray(after));
  if (both) {
    const a = before as Record<string, Json>;
    const b = after as Record<string, Json>;
    const keys = Array.isArray(before)
      ? Array.from({ length: Math.max(before.length, (after as Json[]).length) }, (_, i) => String(i))
      : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => diffJson(a[key], b[key], isSensitive, prefix ? `${prefix}.${key}` : key));
  }
  if (sameJson(before, after)) return [];
  if (isSensitive(prefix)) return [{ path: prefix, sensitive: true }];
  return [compact({ path: prefix, before, after }) as unknown as FieldChange];
}

/** Top-level field names a diff touches, for blocked changes and notes. */
export function topFields(changes: readonly FieldChange[]): string[] {
  return [...new Set(changes.map((c) => c.path.split('.')[0]))];
}
