// The KvPairs kind: pairs from the files (inline, JSON and JSON Lines files, folders) written by bulk PUT
// (operation 10) in chunks, diffed per key against the hashes state keeps, never the values.

import { defineKind } from './families.js';
import type { KvPayload } from './kv/model.js';
import { registerKind } from './registry.js';
import { buildKv } from './kv/model.js';
import { bulkOutcome } from './kv/answer.js';
import type { WirePair } from './kv/pair.js';
import { planKv, resendKv } from './kv/plan.js';
import { compareKv } from './kv/observed.js';

const kv = defineKind(
  {
    kind: 'KvPairs',
    scopeKeys: ['account', 'namespace'],
    paramMap: { account: 'account_identifier', namespace: 'namespace_identifier' },
    // metadata.verify: each pair carries its content hash in its metadata (src/kinds/kv/observed.ts).
    build: (doc, ctx) => buildKv(doc.spec, ctx, { verify: doc.metadata.verify === true }),
    // Documents may share a namespace, not a key: the payload's keys are sorted (UTF-8 bytes) and unique.
    targets: (self) => [
      {
        what: `KV namespace ${self.scope.namespace} of account ${self.scope.account}`,
        at: ['metadata', 'namespace'],
        parts: () => Array.from((self.payload as KvPayload).keys.entries(), (e) => e.key),
      },
    ],
    // Diffed key by key against the hashes state keeps.
    keyState: true,
    operations: ['writeKvBulk'],
    // Every pair written again, when the document opts in with metadata.resync.
    resend: (ctx) => resendKv(ctx),
    // A refresh lists the namespace's keys, 1,000 a call (name, expiration, metadata), never their values.
    observeKeys: {
      read: 'listKvKeys',
      params: (scope) => ({ account_id: scope.account, namespace_id: scope.namespace }),
      query: { limit: '1000' },
      compare: compareKv,
    },
  },
  (ctx) => planKv(ctx),
  // A chunk's record (its keys and hashes) is what to remember, less the keys the answer refused.
  (action, result) => bulkOutcome(action.body as WirePair[], result),
);

registerKind({
  ...kv,
  operations: [...kv.operations, 'deleteKvBulk'],
  // Prune deletes the keys a dropped document wrote (its state's keys), 10,000 a call; never the namespace.
  remove: {
    operation: 'deleteKvBulk',
    params: (applied) => (applied.scope.account && applied.scope.namespace ? { account_id: applied.scope.account, namespace_id: applied.scope.namespace } : undefined),
  },
});
