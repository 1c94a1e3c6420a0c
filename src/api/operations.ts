// The 17 operations and the provider's reads (docs/operations.md): name, method, path template and
// documented answer, in one table. Everything that names an operation (client, kinds, plan, executor, metrics) uses these names.

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

/** What `result` must be: an object (map), a list (a read's page), a string (the rolled secret), any JSON value, or nothing read. */
export type ResultShape = 'object' | 'list' | 'string' | 'any' | 'none';

/**
 * How a read's list comes: `single`, every object in one answer (a `result_info` that names more
 * pages is followed all the same); `page`, `page`/`per_page` with `result_info.total_pages`;
 * `cursor`, `cursor`/`limit` with `result_info.cursor` (empty on the last page).
 */
export type Paging = 'single' | 'page' | 'cursor';

/** A read of the provider: `id` its operationId in the provider's published OpenAPI. */
interface Read {
  /** GET, but for a read whose question is a body (the KV bulk get, a POST that changes nothing). */
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly answer: 'result';
  readonly result: 'object' | 'list';
  readonly id: string;
  readonly paging?: Paging;
  /** A 2xx that is not JSON is the result itself, as a BinaryAnswer (a KV value's bytes). */
  readonly binary?: true;
}

const list = (path: string, id: string, paging: Paging = 'single'): Read => ({ method: 'GET', path, answer: 'result', result: 'list', id, paging });
const one = (path: string, id: string): Read => ({ method: 'GET', path, answer: 'result', result: 'object', id });
/** A read whose answer is bytes, not the envelope (a KV value). */
const bytes = (path: string, id: string): Read => ({ method: 'GET', path, answer: 'result', result: 'object', id, binary: true });
/** A read that asks with a JSON body: nothing is written, whatever the method. */
const asked = (path: string, id: string): Read => ({ method: 'POST', path, answer: 'result', result: 'object', id });

/**
 * The reads that show what is there: one list per kind where the provider has one (a call a page,
 * not one per resource), and each object's read. Path parameters keep the provider's names.
 */
const READS = {
  listScripts: list('/accounts/{account_id}/workers/scripts', 'worker-script-list-workers'),
  listWorkerDomains: list('/accounts/{account_id}/workers/domains', 'worker-domain-list-domains'),
  getWorkerDomain: one('/accounts/{account_id}/workers/domains/{domain_id}', 'worker-domain-get-a-domain'),
  listRoutes: list('/zones/{zone_id}/workers/routes', 'worker-routes-list-routes'),
  getRoute: one('/zones/{zone_id}/workers/routes/{route_id}', 'worker-routes-get-route'),
  listKvKeys: list('/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/keys', "workers-kv-namespace-list-a-namespace'-s-keys", 'cursor'),
  // Up to 100 keys' values (and metadata, expiration) in one call: body {keys, type, withMetadata}.
  bulkGetKv: asked('/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/get', 'workers-kv-namespace-get-multiple-key-value-pairs'),
  // One value, as its bytes: what the bulk get cannot answer (a value that is not text).
  getKvValue: bytes('/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}', 'workers-kv-namespace-read-key-value-pair'),
  getKvMetadata: one('/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/metadata/{key_name}', 'workers-kv-namespace-read-the-metadata-for-a-key'),
  listLists: list('/accounts/{account_id}/gateway/lists', 'zero-trust-lists-list-zero-trust-lists'),
  getList: one('/accounts/{account_id}/gateway/lists/{list_id}', 'zero-trust-lists-zero-trust-list-details'),
  listListItems: list('/accounts/{account_id}/gateway/lists/{list_id}/items', 'zero-trust-lists-zero-trust-list-items'),
  listLocations: list('/accounts/{account_id}/gateway/locations', 'zero-trust-gateway-locations-list-zero-trust-gateway-locations'),
  getLocation: one('/accounts/{account_id}/gateway/locations/{location_id}', 'zero-trust-gateway-locations-zero-trust-gateway-location-details'),
  listProxyEndpoints: list('/accounts/{account_id}/gateway/proxy_endpoints', 'zero-trust-gateway-proxy-endpoints-list-proxy-endpoints'),
  getProxyEndpoint: one('/accounts/{account_id}/gateway/proxy_endpoints/{proxy_endpoint_id}', 'zero-trust-gateway-proxy-endpoints-proxy-endpoint-details'),
  getLogging: one('/accounts/{account_id}/gateway/logging', 'zero-trust-accounts-get-logging-settings-for-the-zero-trust-account'),
  getGatewayAccount: one('/accounts/{account_id}/gateway', 'zero-trust-accounts-get-zero-trust-account-information'),
  getConnectivitySettings: one('/accounts/{account_id}/zerotrust/connectivity_settings', 'zero-trust-accounts-get-connectivity-settings'),
  getAccessOrganization: one('/accounts/{account_id}/access/organizations', 'zero-trust-organization-get-your-zero-trust-organization'),
  getUser: one('/user', 'user-user-details'),
  listTokens: list('/user/tokens', 'user-api-tokens-list-tokens', 'page'),
  getToken: one('/user/tokens/{token_id}', 'user-api-tokens-token-details'),
} as const satisfies Record<string, Read>;

export type ReadName = keyof typeof READS;

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
  // Beyond the interface's 17: the provider's own writes, by its operationId (docs/operations.md).
  // A list's items in place: `append` new ones, `remove` values (zero-trust-lists-patch-zero-trust-list).
  patchList: { id: 'zero-trust-lists-patch-zero-trust-list', method: 'PATCH', path: '/accounts/{account_id}/gateway/lists/{list_id}', answer: 'result', result: 'object' },
  updateLocation: {
    id: 'zero-trust-gateway-locations-update-zero-trust-gateway-location',
    method: 'PUT',
    path: '/accounts/{account_id}/gateway/locations/{location_id}',
    answer: 'result',
    result: 'object',
  },
  patchProxyEndpoint: {
    id: 'zero-trust-gateway-proxy-endpoints-update-proxy-endpoint',
    method: 'PATCH',
    path: '/accounts/{account_id}/gateway/proxy_endpoints/{proxy_endpoint_id}',
    answer: 'result',
    result: 'object',
  },
  createRoute: { id: 'worker-routes-create-route', method: 'POST', path: '/zones/{zone_id}/workers/routes', answer: 'result', result: 'object' },
  createAccessOrganization: {
    id: 'zero-trust-organization-create-your-zero-trust-organization',
    method: 'POST',
    path: '/accounts/{account_id}/access/organizations',
    answer: 'result',
    result: 'object',
  },
  // The deletes: what prune sends for an object the config dropped.
  detachWorkerDomain: { id: 'worker-domain-detach-from-domain', method: 'DELETE', path: '/accounts/{account_id}/workers/domains/{domain_id}', answer: 'bulk', result: 'none' },
  deleteRoute: { id: 'worker-routes-delete-route', method: 'DELETE', path: '/zones/{zone_id}/workers/routes/{route_id}', answer: 'bulk', result: 'none' },
  // At most 10,000 keys, the body a JSON array of key names.
  deleteKvBulk: {
    id: 'workers-kv-namespace-delete-multiple-key-value-pairs',
    method: 'POST',
    path: '/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/delete',
    answer: 'bulk',
    result: 'none',
  },
  deleteList: { id: 'zero-trust-lists-delete-zero-trust-list', method: 'DELETE', path: '/accounts/{account_id}/gateway/lists/{list_id}', answer: 'bulk', result: 'none' },
  deleteLocation: {
    id: 'zero-trust-gateway-locations-delete-zero-trust-gateway-location',
    method: 'DELETE',
    path: '/accounts/{account_id}/gateway/locations/{location_id}',
    answer: 'bulk',
    result: 'none',
  },
  deleteProxyEndpoint: {
    id: 'zero-trust-gateway-proxy-endpoints-delete-proxy-endpoint',
    method: 'DELETE',
    path: '/accounts/{account_id}/gateway/proxy_endpoints/{proxy_endpoint_id}',
    answer: 'bulk',
    result: 'none',
  },
  deleteToken: { id: 'user-api-tokens-delete-token', method: 'DELETE', path: '/user/tokens/{token_id}', answer: 'bulk', result: 'none' },
} as const satisfies Record<string, { n?: number; id?: string; method: string; path: string; answer: AnswerShape; result: ResultShape; binary?: true }>;

/** A write: the interface's 17 (`n`), or one of the provider's beyond them (`id`, its operationId). */
export type OperationName = keyof typeof OPERATIONS;
/** Any call the client makes: a write, or a read. */
export type CallName = OperationName | ReadName;

/** Every call's entry, writes and reads. */
export const ROUTES: Readonly<
  Record<CallName, { readonly method: string; readonly path: string; readonly answer: AnswerShape; readonly result: ResultShape; readonly binary?: true; readonly paging?: Paging }>
> = {
  ...OPERATIONS,
  ...READS,
};

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
export function operationPath(op: CallName, params: Readonly<Record<string, string>>): string {
  return ROUTES[op].path.replace(/\{(\+?)(\w+)\}/g, (_, plus: string, name: string) => {
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
const templates = new Map<CallName, RegExp>();

function templateOf(op: CallName): RegExp {
  let pattern = templates.get(op);
  if (!pattern) {
    const one = `(?!${DOT_SEGMENT})[^/?#]+`;
    const source = ROUTES[op].path
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
export function checkedUrl(op: CallName, baseUrl: string, path: string): CheckedUrl {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl + path);
  } catch {
    return { ok: false, problem: `its URL cannot be parsed, so it is not a path of ${op} (${ROUTES[op].path})` };
  }
  const rest = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : undefined;
  if (url.origin === base.origin && url.search === '' && url.hash === '' && rest === path && templateOf(op).test(rest)) return { ok: true, url };
  return {
    ok: false,
    problem: `once its URL is parsed, its path would be ${url.pathname}${url.search}${url.hash}, which is not a path of ${op} (${basePath}${ROUTES[op].path})`,
  };
}
