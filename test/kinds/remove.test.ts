import { describe, expect, it } from 'vitest';
import { allKinds } from '../../src/kinds/registry.js';
import './helpers.js';

describe('what prune may delete, by kind', () => {
  it('names a delete for each kind of object edgesync creates or attaches, and none for a singleton, the user, a script, a run, a credential or a policy', () => {
    const deletes = Object.fromEntries(
      allKinds()
        .filter((k) => k.kind !== 'KvPairs')
        .map((k) => [k.kind, k.remove?.operation ?? null]),
    );
    expect(deletes).toEqual({
      WorkerScript: null,
      WorkerDomain: 'detachWorkerDomain',
      WorkerRoute: 'deleteRoute',
      AccessOrganization: null,
      GatewayList: 'deleteList',
      GatewayLocation: 'deleteLocation',
      GatewayProxyEndpoint: 'deleteProxyEndpoint',
      GatewayLogging: null,
      GatewayAccount: null,
      ConnectivitySettings: null,
      UserProfile: null,
      ApiToken: 'deleteToken',
      AiRun: null,
      Credentials: null,
      Policy: null,
    });
  });
});
