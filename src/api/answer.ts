// Checking a successful answer against the shape documented for its operation (see ROUTES).
// Extra fields never matter; a missing envelope, `result` or a `result` of the wrong type does.

import { ROUTES, type CallName, type ResultShape } from './operations.js';

export type Checked = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly problem: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const EXPECTED: Readonly<Record<ResultShape, string>> = { object: 'an object', list: 'a list', string: 'a string', any: 'a value', none: 'nothing' };

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkResult(result: unknown, shape: ResultShape): Checked {
  const fits =
    shape === 'object'
      ? isObject(result)
      : shape === 'list'
        ? Array.isArray(result)
        : shape === 'string'
          ? typeof result === 'string'
          : shape === 'any'
            ? result !== undefined
            : true;
  return fits ? { ok: true, result } : { ok: false, problem: `its result is ${typeOf(result)}, where ${EXPECTED[shape]} is documented` };
}

/** Names the fields a body has, for a message that shows the shape without any value (values may be secret). */
function fieldsOf(body: Record<string, unknown>): string {
  const keys = Object.keys(body);
  if (!keys.length) return 'an empty object';
  const shown = keys.slice(0, 5).join(', ');
  return `an object with ${shown}${keys.length > 5 ? ', …' : ''}`;
}

/**
 * The `result` of a 2xx JSON object `body` (already known not to say `success: false`), or why the body
 * is not the answer documented for `op`.
 */
export function documentedResult(op: CallName, body: Record<string, unknown>): Checked {
  const { answer, result: shape } = ROUTES[op];
  const hasResult = Object.hasOwn(body, 'result');
  const enveloped = body.success === true;
  switch (answer) {
    case 'envelope':
      if (!enveloped || !hasResult) return { ok: false, problem: `it is ${fieldsOf(body)}, not the documented envelope {success, errors, messages, result}` };
      return checkResult(body.result, shape);
    case 'result':
      if (!hasResult) return { ok: false, problem: `it is ${fieldsOf(body)}, with no \`result\`` };
      return checkResult(body.result, shape);
    case 'script':
      // Documented as the bare Worker script object; the provider wraps it in an envelope.
      if (hasResult) return checkResult(body.result, shape);
      if (Object.hasOwn(body, 'success')) return { ok: false, problem: `it is ${fieldsOf(body)}, with no \`result\`` };
      return { ok: true, result: body };
    case 'bulk':
      if (enveloped || hasResult || Object.keys(body).length === 0) return { ok: true, result: body.result };
      return { ok: false, problem: `it is ${fieldsOf(body)}, neither {} nor one with \`result\`` };
  }
}
