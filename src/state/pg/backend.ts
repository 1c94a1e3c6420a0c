// A workspace of a PostgreSQL database as the composition root's StateBackend: no files of its
// own (approvals of held plans are rows too), and the same lost-state check against the secrets folder.

import path from 'node:path';
import { EMPTY_SNAPSHOT, type StateBackend } from '../backend.js';
import { checkLostSecrets, StateMissingError } from '../file.js';
import { checkWorkspace, claimPgState, openPgStateStore } from './open.js';
import { pgApprovals } from './approvals.js';
import { redactUrl } from './url.js';

export function pgBackend(url: string, workspace = 'default'): StateBackend {
  const ws = checkWorkspace(workspace);
  const label = `${redactUrl(url)} (workspace ${ws})`;
  const local = path.resolve('.edgesync');
  return {
    shown: `state ${label}`,
    ownPaths: [],
    approvals: pgApprovals(url, ws, `state ${label}`),
    defaultSecretsDir: path.join(local, 'secrets'),
    database: { url, workspace: ws },
    open: ({ owner, secretsDir, notSecrets, clock }) =>
      openPgStateStore({ url, workspace: ws, owner, ...(clock && { clock }), onMissing: (shown) => checkLostSecrets(shown, secretsDir, notSecrets) }),
    read(use, secretsDir, notSecrets) {
      let store;
      try {
        store = openPgStateStore({ url, workspace: ws, readOnly: true });
      } catch (err) {
        if (!(err instanceof StateMissingError)) throw err;
        checkLostSecrets(label, secretsDir, notSecrets);
        return use(EMPTY_SNAPSHOT);
      }
      try {
        return use(store.snapshot());
      } finally {
        store.close();
      }
    },
    openReadOnly: () => openPgStateStore({ url, workspace: ws, readOnly: true }),
    claim: ({ owner, secretsDir, notSecrets, clock }) =>
      claimPgState({ url, workspace: ws, owner, ...(clock && { clock }), onMissing: (shown) => checkLostSecrets(shown, secretsDir, notSecrets) }),
  };
}
