// A small checker for JSON request bodies: typed fields, required fields, enums, ISO 8601
// datetimes and closed objects; it collects every problem with its field path, never only the first.

export type Shape =
  | { readonly kind: 'string' | 'boolean' | 'number' | 'datetime' | 'any' | 'null' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'array'; readonly items: Shape }
  | { readonly kind: 'map'; readonly values: Shape }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Field>>; readonly open?: boolean }
  | { readonly kind: 'either'; readonly what: string; readonly shapes: readonly Shape[] };

export interface Field {
  readonly shape: Shape;
  readonly required?: boolean;
}

export const str: Shape = { kind: 'string' };
export const bool: Shape = { kind: 'boolean' };
export const num: Shape = { kind: 'number' };
export const datetime: Shape = { kind: 'datetime' };
const anything: Shape = { kind: 'any' };
export const nothing: Shape = { kind: 'null' };
export const anyObject: Shape = { kind: 'map', values: anything };
export const listOf = (items: Shape): Shape => ({ kind: 'array', items });
export const oneOf = (...values: string[]): Shape => ({ kind: 'enum', values });
export const req = (shape: Shape): Field => ({ shape, required: true });
export const opt = (shape: Shape): Field => ({ shape });
/** Known keys typed; keys not listed pass (nested objects are open unless said otherwise). */
/** One of several shapes (a network as a string or as `{network}`); `what` names them in a problem. */
export const either = (what: string, ...shapes: Shape[]): Shape => ({ kind: 'either', what, shapes });
export const object = (fields: Record<string, Field>, open = true): Shape => ({ kind: 'object', fields, open });

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;

/** A full ISO 8601 date-time with a zone (Z or ±hh:mm) whose parts are a real calendar time. */
export function isIsoDateTime(value: string): boolean {
  const m = isoDateTime.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second = '0', zh = '0', zm = '0'] = m.slice(1);
  const y = Number(year), mo = Number(month), d = Number(day);
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && Number(hour) <= 23 && Number(minute) <= 59
    && Number(second) <= 59 && Number(zh) <= 23 && Number(zm) <= 59;
}

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

function label(path: string): string {
  return path === '' ? 'body' : path;
}

/** Checks `value` against `shape`, pushing `path: problem` messages onto `problems`. */
export function check(value: unknown, shape: Shape, path: string, problems: string[]): void {
  const expected = (what: string): void => {
    problems.push(`${label(path)}: expected ${what}, got ${typeName(value)}`);
  };
  switch (shape.kind) {
    case 'any':
      return;
    case 'null':
      if (value !== null) expected('null');
      return;
    case 'string':
    case 'boolean':
      if (typeof value !== shape.kind) expected(shape.kind);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) expected('number');
      return;
    case 'datetime':
      if (typeof value !== 'string') expected('an ISO 8601 datetime string');
      else if (!isIsoDateTime(value)) problems.push(`${label(path)}: expected an ISO 8601 datetime like 2030-01-31T12:00:00Z`);
      return;
    case 'enum':
      if (typeof value !== 'string' || !shape.values.includes(value)) {
        problems.push(`${label(path)}: expected one of ${shape.values.join(', ')}`);
      }
      return;
    case 'array':
      if (!Array.isArray(value)) return expected('array');
      value.forEach((item, i) => check(item, shape.items, joinPath(path, i), problems));
      return;
    case 'map':
      if (!isPlainObject(value)) return expected('object');
      for (const [key, item] of Object.entries(value)) check(item, shape.values, joinPath(path, key), problems);
      return;
    case 'object':
      if (!isPlainObject(value)) return expected('object');
      checkFields(value, shape, path, problems);
      return;
    case 'either':
      if (!shape.shapes.some((s) => problemsAt(value, s, path).length === 0)) expected(shape.what);
      return;
  }
}

function checkFields(value: Record<string, unknown>, shape: Extract<Shape, { kind: 'object' }>, path: string, problems: string[]): void {
  for (const [name, field] of Object.entries(shape.fields)) {
    const present = Object.hasOwn(value, name) && value[name] !== undefined;
    if (!present) {
      if (field.required) problems.push(`${joinPath(path, name)}: required field missing`);
      continue;
    }
    check(value[name], field.shape, joinPath(path, name), problems);
  }
  if (shape.open) return;
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(shape.fields, name)) problems.push(`${joinPath(path, name)}: unknown field`);
  }
}

function problemsAt(value: unknown, shape: Shape, path: string): string[] {
  const problems: string[] = [];
  check(value, shape, path, problems);
  return problems;
}

/** Validates a request body against a closed top-level object shape; throws nothing, returns the problems. */
export function problemsOf(body: unknown, shape: Shape): string[] {
  const problems: string[] = [];
  check(body, shape, '', problems);
  return problems;
}
