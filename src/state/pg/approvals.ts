// Approvals of a held plan in a PostgreSQL workspace (table approvals, one per workspace), so that
// `apply --force` on any machine approves for the leader wherever it runs.

import type { Approvals } from '../approvals.js';
import { migratePg } from './schema.js';
import { inTransaction, withSession, type PgSession } from './session.js';

export function pgApprovals(url: string, workspace: string, shown: string): Approvals {
  const use = <T>(fn: (session: PgSession) => Promise<T>): Promise<T> =>
    withSession(url, shown, async (session) => {
      await inTransaction(session, () => migratePg(session, shown));
      return fn(session);
    });
  return {
    shown,
    async give(digest) {
      await use((s) =>
        s.query(
          `INSERT INTO approvals (workspace, config_digest, approved_at) VALUES ($1, $2, now())
           ON CONFLICT (workspace) DO UPDATE SET config_digest = EXCLUDED.config_digest, approved_at = EXCLUDED.approved_at`,
          [workspace, digest],
        ),
      );
    },
    waiting: () => use(async (s) => (await s.query('SELECT 1 FROM approvals WHERE workspace = $1', [workspace])).rowCount > 0),
    take: (digest) =>
      use(async (s) => {
        const rows = (await s.query('DELETE FROM approvals WHERE workspace = $1 RETURNING config_digest', [workspace])).rows as { config_digest: string }[];
        return rows[0]?.config_digest === digest;
      }),
  };
}
