// A workspace of a PostgreSQL database as the composition root's StateBackend: no files of its
// own (approvals of held plans are rows too), and the same lost-state check against the secrets folder.

import path from 'node:path';
import { EMPTY_SNAPSHOT, readAheadKeeper, readKept, withReadOnly, type StateBackend } from '../backend.js';
import { checkLostSecrets } from '../file.js';
import { checkWorkspace, claimPgState, openPgStateStore } from './open.js';
import { pgApprovals } from './approvals.js';
import { redactUrl } from '../../util/redact.js';
import { checkPgUrl } from './url.js';

/**
 * The default secrets folder of a workspace. A folder shared by the workspaces of one database would
 * make a new workspace look like a lost state (the other's token secrets are "files from earlier
 * applies") and mix their tokens: each has its own, `@NAME` below the default workspace's folder,
 * which keeps today's path. `@` is never in a token's secret file name (secretFileName escapes it).
 */
export function workspaceSecretsDir(local: string, workspace: string): string {
  const shared = path.join(local, 'secrets');
  return workspace === 'default' ? shared : path.join(shared, `@${workspace}`);
}

export function pgBackend(url: string, workspace = 'default'): StateBackend {
  // Before anything connects: a malformed URL would otherwise reach the driver.
  checkPgUrl(url);
  const ws = checkWorkspace(workspace);
  const label = `${redactUrl(url)} (workspace ${ws})`;
  const local = path.resolve('.edgesync');
  // A workspace missing while the secrets folder holds an earlier apply's files was lost: refused.
  const ifMissing = (secretsDir?: string, notSecrets?: readonly string[]) => (shown: string) => checkLostSecrets(shown, secretsDir, notSecrets);
  const openReadOnly = () => openPgStateStore({ url, workspace: ws, readOnly: true });
  const ahead = readAheadKeeper(openReadOnly);
  return {
    shown: `state ${label}`,
    ownPaths: [],
    approvals: pgApprovals(url, ws, `state ${label}`),
    defaultSecretsDir: workspaceSecretsDir(local, ws),
    localDir: local,
    database: { url, workspace: ws },
    open: ({ owner, secretsDir, notSecrets, clock }) => openPgStateStore({ url, workspace: ws, owner, ...(clock && { clock }), onMissing: ifMissing(secretsDir, notSecrets) }),
    async read(use, secretsDir, notSecrets) {
      const kept = await ahead.take();
      if (kept) return readKept(kept, use);
      return withReadOnly({ openReadOnly }, async (store) => {
        if (store) return use(await store.snapshot());
        ifMissing(secretsDir, notSecrets)(label);
        return use(EMPTY_SNAPSHOT);
      });
    },
    readAhead: ahead.readAhead,
    openReadOnly,
    claim: ({ owner, secretsDir, notSecrets, clock }) => claimPgState({ url, workspace: ws, owner, ...(clock && { clock }), onMissing: ifMissing(secretsDir, notSecrets) }),
  };
}
