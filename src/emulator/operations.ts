// The names of the writes the emulator serves: the interface's 17 by their number, and the provider's
// writes beyond them by name (docs/operations.md), for per-operation faults, the request log and validation.

/** The interface's 17, by their place in its list; the names are the ones docs/operations.md gives them. */
const NUMBERED_OPERATIONS: Readonly<Record<number, string>> = {
  1: 'putScriptContent',
  2: 'updateAccessOrganization',
  3: 'updateToken',
  4: 'attachWorkerDomain',
  5: 'createProxyEndpoint',
  6: 'createList',
  7: 'createLocation',
  8: 'createToken',
  9: 'updateList',
  10: 'writeKvBulk',
  11: 'updateRoute',
  12: 'updateLogging',
  13: 'createGatewayAccount',
  14: 'runAi',
  15: 'editUser',
  16: 'rollToken',
  17: 'updateConnectivitySettings',
};

/** The provider's writes beyond the 17 ("Beyond the interface" in docs/operations.md): they have a name, no number. */
const NAMED_OPERATIONS = [
  'patchList',
  'updateLocation',
  'patchProxyEndpoint',
  'createRoute',
  'createAccessOrganization',
  'detachWorkerDomain',
  'deleteRoute',
  'deleteKvBulk',
  'deleteList',
  'deleteLocation',
  'deleteProxyEndpoint',
  'deleteToken',
] as const;

type NamedOperation = (typeof NAMED_OPERATIONS)[number];

/** A write as the emulator registers it: one of the 17 by its number, or one beyond them by its name. */
export type Op = number | NamedOperation;

/** The name of `op`, whichever way it is given. */
export function operationName(op: Op): string {
  return typeof op === 'number' ? (NUMBERED_OPERATIONS[op] ?? String(op)) : op;
}

/** Every operation name the emulator serves, the 17 first. */
export const OPERATION_NAMES: readonly string[] = [...Object.values(NUMBERED_OPERATIONS), ...NAMED_OPERATIONS];
