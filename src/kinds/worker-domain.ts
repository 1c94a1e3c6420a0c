// WorkerDomain (operation 4, PUT): attaches a Worker service to a zone and hostname.
// Follows the WorkerScript of the same account whose service it names.

import { accountScope, dependsOn, putKind } from './families.js';
import { registerKind } from './registry.js';

export const workerDomain = registerKind(
  putKind({
    kind: 'WorkerDomain',
    ...accountScope('account_identifier'),
    operation: 'attachWorkerDomain',
    // The attachment is the hostname's: a second document naming it re-attaches it elsewhere.
    targets: (self) => [{ what: `hostname ${String((self.request as { hostname?: string }).hostname).toLowerCase()} of account ${self.scope.account}`, at: ['spec', 'hostname'] }],
    dependencies: dependsOn(
      'WorkerScript',
      (script, self) => script.scope.account === self.scope.account && script.scope.service === (self.request as { service?: string }).service,
    ),
  }),
);
