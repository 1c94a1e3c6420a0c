// The 17 operations of interface.md: name, method and path template, in one table.
// Everything that names an operation (client, kinds, plan, executor, metrics) uses these names.

export const OPERATIONS = {
  putScriptContent: { n: 1, method: 'PUT', path: '/accounts/{account_identifier}/workers/services/{service_name}/environments/{environment_name}/content' },
  updateAccessOrganization: { n: 2, method: 'PUT', path: '/accounts/{identifier}/access/organizations' },
  updateToken: { n: 3, method: 'PUT', path: '/user/tokens/{identifier}' },
  attachWorkerDomain: { n: 4, method: 'PUT', path: '/accounts/{account_identifier}/workers/domains' },
  createProxyEndpoint: { n: 5, method: 'POST', path: '/accounts/{identifier}/gateway/proxy_endpoints' },
  createList: { n: 6, method: 'POST', path: '/accounts/{identifier}/gateway/lists' },
  createLocation: { n: 7, method: 'POST', path: '/accounts/{identifier}/gateway/locations' },
  createToken: { n: 8, method: 'POST', path: '/user/tokens' },
  updateList: { n: 9, method: 'PUT', path: '/accounts/{identifier}/gateway/lists/{uuid}' },
  writeKvBulk: { n: 10, method: 'PUT', path: '/accounts/{account_identifier}/storage/kv/namespaces/{namespace_identifier}/bulk' },
  updateRoute: { n: 11, method: 'PUT', path: '/zones/{zone_id}/workers/routes/{route_id}' },
  updateLogging: { n: 12, method: 'PUT', path: '/accounts/{identifier}/gateway/logging' },
  createGatewayAccount: { n: 13, method: 'POST', path: '/accounts/{identifier}/gateway' },
  runAi: { n: 14, method: 'POST', path: '/accounts/{account_identifier}/ai/run/{model_name}' },
  editUser: { n: 15, method: 'PATCH', path: '/user' },
  rollToken: { n: 16, method: 'PUT', path: '/user/tokens/{identifier}/value' },
  updateConnectivitySettings: { n: 17, method: 'PATCH', path: '/accounts/{account_identifier}/zerotrust/connectivity_settings' },
} as const;

export type OperationName = keyof typeof OPERATIONS;

/** Fills a path template; every parameter is URI-encoded, a missing one is a programming error. */
export function operationPath(op: OperationName, params: Readonly<Record<string, string>>): string {
  return OPERATIONS[op].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`Operation ${op} needs path parameter \`${name}\``);
    }
    return encodeURIComponent(value);
  });
}
