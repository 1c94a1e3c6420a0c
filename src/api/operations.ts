// The 17 operations (docs/operations.md): name, method, path template and documented answer, in one table.
// Everything that names an operation (client, kinds, plan, executor, metrics) uses these names.

/**
 * The answer a 200 carries, as documented; the full envelope `{success, errors, messages, result}` is
 * accepted for every operation, since the provider may send it where only `{result}` is documented.
 * - `envelope`: the full envelope, `success: true` and a `result`;
 * - `result`: at least `{result}`;
 * - `script`: a Worker script object, bare or as `{result}`;
 * - `bulk`: `{}`, or one with `result` (not read).
 *
 * `binary`: a 2xx that is not JSON (an image model's PNG) is the result itself, as a BinaryAnswer.
 */
export type AnswerShape = 'envelope' | 'result' | 'script' | 'bulk';

/** What `result` must be: an object (map), a string (the rolled secret), any JSON value, or nothing read. */
export type ResultShape = 'object' | 'string' | 'any' | 'none';

export const OPERATIONS = {
  putScriptContent: {
    n: 1,
    method: 'PUT',
    path: '/accounts/{account_identifier}/workers/services/{service_name}/environments/{environment_name}/content',
    answer: 'script',
    result: 'object',
  },
  updateAccessOrganization: { n: 2, method: 'PUT', path: '/accounts/{identifier}/access/organizations', answer: 'result', result: 'object' },
  updateToken: { n: 3, method: 'PUT', path: '/user/tokens/{identifier}', answer: 'result', result: 'object' },
  attachWorkerDomain: { n: 4, method: 'PUT', path: '/accounts/{account_identifier}/workers/domains', answer: 'envelope', result: 'object' },
  createProxyEndpoint: { n: 5, method: 'POST', path: '/accounts/{identifier}/gateway/proxy_endpoints', answer: 'result', result: 'object' },
  createList: { n: 6, method: 'POST', path: '/accounts/{identifier}/gateway/lists', answer: 'result', result: 'object' },
  createLocation: { n: 7, method: 'POST', path: '/accounts/{identifier}/gateway/locations', answer: 'result', result: 'object' },
  createToken: { n: 8, method: 'POST', path: '/user/tokens', answer: 'result', result: 'object' },
  updateList: { n: 9, method: 'PUT', path: '/accounts/{identifier}/gateway/lists/{uuid}', answer: 'result', result: 'object' },
  writeKvBulk: { n: 10, method: 'PUT', path: '/accounts/{account_identifier}/storage/kv/namespaces/{namespace_identifier}/bulk', answer: 'bulk', result: 'none' },
  updateRoute: { n: 11, method: 'PUT', path: '/zones/{zone_id}/workers/routes/{route_id}', answer: 'result', result: 'object' },
  updateLogging: { n: 12, method: 'PUT', path: '/accounts/{identifier}/gateway/logging', answer: 'result', result: 'object' },
  createGatewayAccount: { n: 13, method: 'POST', path: '/accounts/{identifier}/gateway', answer: 'result', result: 'object' },
  runAi: { n: 14, method: 'POST', path: '/accounts/{account_identifier}/ai/run/{+model_name}', answer: 'envelope', result: 'any', binary: true },
  editUser: { n: 15, method: 'PATCH', path: '/user', answer: 'result', result: 'object' },
  rollToken: { n: 16, method: 'PUT', path: '/user/tokens/{identifier}/value', answer: 'result', result: 'string' },
  updateConnectivitySettings: { n: 17, method: 'PATCH', path: '/accounts/{account_identifier}/zerotrust/connectivity_settings', answer: 'envelope', result: 'object' },
} as const satisfies Record<string, { n: number; method: string; path: string; answer: AnswerShape; result: ResultShape; binary?: true }>;

export type OperationName = keyof typeof OPERATIONS;

/**
 * A path parameter that no encoding keeps in its place: a '.' or '..' segment (which every URL
 * parser collapses, spelled `%2e` too), or an empty part of a `{+name}` value. Nothing is sent.
 */
export class PathParameterError extends TypeError {
  override name = 'PathParameterError';
}

/**
 * Fills a path template; every parameter is percent-encoded but for RFC 3986's unreserved characters,
 * so no value adds a segment, a query or a fragment. A missing parameter is a programming error.
 * `{+name}` keeps the value's slashes as path separators (a model name `@cf/meta/…`): the provider
 * routes only literal slashes and answers an encoded one with "No route for that URI".
 * A '.' or '..' segment, or an empty one, throws a PathParameterError: encoded or not, it would move the call.
 */
export function operationPath(op: OperationName, params: Readonly<Record<string, string>>): string {
  return OPERATIONS[op].path.replace(/\{(\+?)(\w+)\}/g, (_, plus: string, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`Operation ${op} needs path parameter \`${name}\``);
    }
    const segments = plus ? value.split('/') : [value];
    for (const s of segments) {
      if (s === '' || s === '.' || s === '..') {
        const what = s === '' ? 'an empty segment' : `a "${s}" segment`;
        throw new PathParameterError(`path parameter \`${name}\` of ${op} holds ${what}, which would move the call to another path`);
      }
    }
    return segments.map((s) => segment(s, plus !== '')).join('/');
  });
}

/** RFC 3986 sub-delimiters encodeURIComponent leaves as they are; encoded too, so a segment is letters, digits, `-._~` and escapes. */
const SUB_DELIMS = /[!'()*]/g;

/** One path segment; in a `{+name}` value, `@` and `:` stay as they are (RFC 3986 pchar), as a model name is written. */
function segment(value: string, modelLike: boolean): string {
  const encoded = encodeURIComponent(value).replace(SUB_DELIMS, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return modelLike ? encoded.replace(/%40/g, '@').replace(/%3A/gi, ':') : encoded;
}

/** A dot segment as a URL parser reads it: `.`, `..`, with any dot spelled `%2e`. */
const DOT_SEGMENT = '(?:\\.|%2[eE]){1,2}(?:/|$)';

/** Operation → its template as a pattern of the encoded path: a parameter is one segment (none a dot segment), `{+name}` one or more. */
const templates = new Map<OperationName, RegExp>();

function templateOf(op: OperationName): RegExp {
  let pattern = templates.get(op);
  if (!pattern) {
    const one = `(?!${DOT_SEGMENT})[^/?#]+`;
    const source = OPERATIONS[op].path
      .split(/(\{\+?\w+\})/)
      .map((part) => (part.startsWith('{+') ? `${one}(?:/${one})*` : part.startsWith('{') ? one : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    pattern = new RegExp(`^${source}$`);
    templates.set(op, pattern);
  }
  return pattern;
}

export type CheckedUrl = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly problem: string };

/**
 * The URL a call of `op` to `path` (from operationPath) is sent to, checked as the URL parser leaves
 * it: the same origin, no query or fragment, and a path that is still `baseUrl`'s path followed by
 * `path` exactly (nothing collapsed, nothing re-encoded), in the shape of the operation's template.
 * Otherwise why not, in words naming the operation: such a call must not be sent.
 */
export function checkedUrl(op: OperationName, baseUrl: string, path: string): CheckedUrl {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl + path);
  } catch {
    return { ok: false, problem: `its URL cannot be parsed, so it is not a path of ${op} (${OPERATIONS[op].path})` };
  }
  const rest = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : undefined;
  if (url.origin === base.origin && url.search === '' && url.hash === '' && rest === path && templateOf(op).test(rest)) return { ok: true, url };
  return {
    ok: false,
    problem: `once its URL is parsed, its path would be ${url.pathname}${url.search}${url.hash}, which is not a path of ${op} (${basePath}${OPERATIONS[op].path})`,
  };
}
