// What the `all-kinds` fixture root holds: each kind's resource key and file, and how to find
// the emulator's objects of its POST resources (the interface has no reads, so tests look there).

import type { EmulatorState, StoredObject } from '../../src/emulator/index.js';
import { ACCOUNT } from './harness.js';

const A = `account=${ACCOUNT}`;
export const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
export const ROUTE = '9a7806061c88ada191ed06f989cc3dac';
export const NAMESPACE = '0f2ac74b498b48028511e2d1c1a3b9c1';
const MODEL = '@cf/meta/llama-3.1-8b-instruct';

/** Every kind of the fixture: its resource key, its file (one document per file) and metadata.name. */
export const RESOURCES = {
  WorkerScript: { key: `WorkerScript[${A},service=api,environment=production]/api`, file: 'workers/script.yaml', name: 'api' },
  WorkerDomain: { key: `WorkerDomain[${A}]/api-domain`, file: 'workers/domain.yaml', name: 'api-domain' },
  WorkerRoute: { key: `WorkerRoute[zone=${ZONE},route=${ROUTE}]/api-route`, file: 'workers/route.yaml', name: 'api-route' },
  KvPairs: { key: `KvPairs[${A},namespace=${NAMESPACE}]/site-content`, file: 'kv/kv.yaml', name: 'site-content' },
  AccessOrganization: { key: `AccessOrganization[${A}]/organization`, file: 'zero-trust/organization.yaml', name: 'organization' },
  ConnectivitySettings: { key: `ConnectivitySettings[${A}]/connectivity`, file: 'zero-trust/connectivity.yaml', name: 'connectivity' },
  GatewayAccount: { key: `GatewayAccount[${A}]/zero-trust`, file: 'zero-trust/gateway-account.yaml', name: 'zero-trust' },
  GatewayList: { key: `GatewayList[${A}]/blocked-domains`, file: 'zero-trust/list.yaml', name: 'blocked-domains' },
  GatewayLocation: { key: `GatewayLocation[${A}]/head-office`, file: 'zero-trust/location.yaml', name: 'head-office' },
  GatewayProxyEndpoint: { key: `GatewayProxyEndpoint[${A}]/office-proxy`, file: 'zero-trust/proxy-endpoint.yaml', name: 'office-proxy' },
  GatewayLogging: { key: `GatewayLogging[${A}]/logging`, file: 'zero-trust/logging.yaml', name: 'logging' },
  UserProfile: { key: 'UserProfile/me', file: 'user/profile.yaml', name: 'me' },
  ApiToken: { key: 'ApiToken/ci-deploy', file: 'user/token.yaml', name: 'ci-deploy' },
  AiRun: { key: `AiRun[${A},model=${MODEL}]/release-summary`, file: 'ai/summary.yaml', name: 'release-summary' },
} as const;

export type KindName = keyof typeof RESOURCES;
export const KINDS = Object.keys(RESOURCES) as KindName[];

export interface PostResource {
  readonly kind: KindName;
  readonly key: string;
  /** The emulator's objects this resource's create would have made (by the name the fixture sends). */
  find(state: EmulatorState): StoredObject[];
}

const named = (list: (s: EmulatorState) => StoredObject[], name: string) => (s: EmulatorState) =>
  list(s).filter((o) => o.name === name && (o.account === undefined || o.account === ACCOUNT));

/** The resources created by POST, as the fixture (unedited) names them. */
export const POST_RESOURCES: readonly PostResource[] = [
  { kind: 'GatewayAccount', key: RESOURCES.GatewayAccount.key, find: (s) => s.gateway_accounts.filter((o) => o.account === ACCOUNT) },
  { kind: 'GatewayList', key: RESOURCES.GatewayList.key, find: named((s) => s.lists, 'Blocked domains') },
  { kind: 'GatewayLocation', key: RESOURCES.GatewayLocation.key, find: named((s) => s.locations, 'Head office') },
  { kind: 'GatewayProxyEndpoint', key: RESOURCES.GatewayProxyEndpoint.key, find: named((s) => s.proxy_endpoints, 'Office proxy') },
  { kind: 'ApiToken', key: RESOURCES.ApiToken.key, find: named((s) => s.tokens, 'CI deploy') },
];
