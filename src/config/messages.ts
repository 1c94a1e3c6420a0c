// ajv errors → findings a person can read, each at a field path: noisy oneOf/anyOf cascades are
// collapsed to the branch the value was closest to, and each keyword gets a plain sentence.

import type { ErrorObject } from 'ajv';
import type { FieldPath } from '../kinds/kind.js';
import { closest, didYouMean } from '../util/closest.js';
import { FORMAT_EXAMPLES } from './formats.js';

export interface Finding {
  readonly path: FieldPath;
  /** 'key': point at the member's key (unknown or missing fields); 'value': at its value. */
  readonly at: 'key' | 'value';
  readonly message: string;
}

/** Turns the errors of one validation of `data` into findings. */
export function describeErrors(errors: readonly ErrorObject[], data: unknown): Finding[] {
  const out: Finding[] = [];
  // A format's example says more than the pattern some schemas repeat it with for editors.
  const formatted = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  const useful = errors.filter((e) => e.keyword !== 'if' && !(e.keyword === 'pattern' && formatted.has(e.instancePath)));
  for (const e of collapse(useful)) {
    const { path, value } = resolvePointer(e.instancePath, data);
    const finding = describe(e, path, value);
    if (finding) out.push(finding);
  }
  return out;
}

function describe(e: ErrorObject, path: FieldPath, value: unknown): Finding | undefined {
  const p = e.params;
  const at = (message: string): Finding => ({ path, at: 'value', message });
  switch (e.keyword) {
    case 'required':
      return { path: [...path, p.missingProperty], at: 'key', message: `missing required field "${p.missingProperty}"` };
    case 'dependentRequired':
      return { path: [...path, p.missingProperty], at: 'key', message: `missing field "${p.missingProperty}", required when "${p.property}" is given` };
    case 'additionalProperties':
      return { path: [...path, p.additionalProperty], at: 'key', message: unknownField(p.additionalProperty, e.parentSchema) };
    case 'unevaluatedProperties':
      return { path: [...path, p.unevaluatedProperty], at: 'key', message: unknownField(p.unevaluatedProperty, e.parentSchema) };
    case 'enum':
      return at(`expected one of ${(p.allowedValues as unknown[]).map(plain).join(', ')}, got ${shown(value)}`);
    case 'const':
      return at(`expected ${JSON.stringify(p.allowedValue)}, got ${shown(value)}`);
    case 'type':
      return at(`expected ${typeNames(p.type)}, got ${shown(value)}`);
    case 'format':
      return at(`expected ${FORMAT_EXAMPLES[p.format] ?? `a ${p.format}`}, got ${shown(value)}`);
    case 'pattern':
      return at(`expected text matching ${p.pattern}, got ${shown(value)}`);
    case 'minLength':
    case 'maxLength':
      return at(`expected ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${count(p.limit, 'character')}, got ${count([...String(value)].length, 'character')}`);
    case 'minItems':
    case 'maxItems':
      return at(`expected ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${count(p.limit, 'item')}, got ${(value as unknown[]).length}`);
    case 'minProperties':
    case 'maxProperties':
      return at(`expected ${e.keyword === 'minProperties' ? 'at least' : 'at most'} ${count(p.limit, 'field')}, got ${Object.keys(value as object).length}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at(`expected a number ${p.comparison} ${p.limit}, got ${shown(value)}`);
    case 'multipleOf':
      return at(`expected a multiple of ${p.multipleOf}, got ${shown(value)}`);
    case 'uniqueItems':
      return at(`items ${p.j} and ${p.i} are the same; each must be unique`);
    case 'false schema':
      return path.length ? { path, at: 'key', message: 'not allowed here' } : at('not allowed here');
    case 'not':
      return at(`${shown(value)} is not allowed here`);
    case 'oneOf':
      return at('matches more than one of the allowed shapes; make it match exactly one');
    default:
      return at(e.message ?? `fails ${e.keyword}`);
  }
}

/** `unknown field "descripton" (…); did you mean "description"?`: the closest of the fields the failed schema names. */
function unknownField(name: string, schema: unknown): string {
  const properties = schema !== null && typeof schema === 'object' ? (schema as { properties?: unknown }).properties : undefined;
  const allowed = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
  return `unknown field "${name}" (not in the interface)${didYouMean(closest(name, allowed).map((f) => JSON.stringify(f)))}`;
}

/**
 * Replaces each oneOf/anyOf failure (outermost first) by the errors of the branch the value came
 * closest to, or by one "expected A or B" when the value's type matches no branch at all.
 */
function collapse(errors: readonly ErrorObject[]): ErrorObject[] {
  const combinators = errors.filter((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && !e.params.passingSchemas);
  if (!combinators.length) return [...errors];
  const outer = combinators.reduce((a, b) => (b.schemaPath.length < a.schemaPath.length ? b : a));
  const prefix = `${outer.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    if (!e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split('/')[0];
    branches.set(branch, [...(branches.get(branch) ?? []), e]);
  }
  const rest = errors.filter((e) => e !== outer && !e.schemaPath.startsWith(prefix));
  const fits = [...branches.values()].filter((b) => !b.some((e) => e.instancePath === outer.instancePath && e.keyword === 'type'));
  if (!fits.length) {
    const types = [...branches.values()].flatMap((b) => b.filter((e) => e.keyword === 'type').flatMap((e) => [e.params.type].flat()));
    const replacement: ErrorObject = { ...outer, keyword: 'type', params: { type: [...new Set(types)] } };
    return collapse([...rest, replacement]);
  }
  const score = (b: ErrorObject[]) => b.filter((e) => e.instancePath === outer.instancePath && e.keyword === 'required').length * 100 + b.length;
  const best = fits.reduce((a, b) => (score(b) < score(a) ? b : a));
  return collapse([...rest, ...best]);
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a map',
  array: 'a list',
  null: 'null',
};

function typeNames(type: string | string[]): string {
  const list = (Array.isArray(type) ? type : String(type).split(',')).map((t) => TYPE_NAMES[t] ?? t);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : list[0];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Enum members as written in YAML: bare words stay bare. */
function plain(v: unknown): string {
  return typeof v === 'string' && /^[\w.-]+$/.test(v) ? v : JSON.stringify(v);
}

/** The offending value, short: strings quoted, collections named. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a map';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
}

/** JSON pointer → field path (numbers where the data holds a list) and the value found there. */
function resolvePointer(pointer: string, data: unknown): { path: FieldPath; value: unknown } {
  const path: (string | number)[] = [];
  let value = data;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path.push(Array.isArray(value) && /^\d+$/.test(seg) ? Number(seg) : seg);
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[seg] : undefined;
  }
  return { path, value };
}
