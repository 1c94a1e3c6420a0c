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
  putScriptContent: { n: 1, method: 'PUT', path: '/accounts/{account_identifier}/workers/services/{service_name}/environments/{environment_name}/content', answer: 'script', result: 'object' },
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
 * Fills a path template; every parameter is URI-encoded, a missing one is a programming error.
 * `{+name}` keeps the value's slashes as path separators (a model name `@cf/meta/…`): the provider
 * routes only literal slashes and answers an encoded one with "No route for that URI".
 */
export function operationPath(op: OperationName, params: Readonly<Record<string, string>>): string {
  return OPERATIONS[op].path.replace(/\{(\+?)(\w+)\}/g, (_, plus: string, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`Operation ${op} needs path parameter \`${name}\``);
    }
    return plus ? value.split('/').map(segment).join('/') : encodeURIComponent(value);
  });
}

/** One path segment: `@` and `:` are allowed as they are (RFC 3986 pchar), everything else as usual. */
function segment(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@').replace(/%3A/gi, ':');
}
