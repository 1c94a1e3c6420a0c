// Approvals of a held plan: `apply --force` leaves one for the daemon that holds the state, which
// takes it once, for exactly the config it was given for. Beside a SQLite file; in a PostgreSQL workspace.

import fs from 'node:fs';

export interface Approvals {
  /** Where approvals wait, as messages name it. */
  readonly shown: string;
  /** Approves applying the plan of the config with this digest over the change thresholds (replacing an earlier approval). */
  give(digest: string): Promise<void>;
  /** Whether an approval waits (for any config): the daemon then plans again, and `take` decides. */
  waiting(): Promise<boolean>;
  /** Whether the waiting approval is for `digest`; taken either way, so it counts once. */
  take(digest: string): Promise<boolean>;
}

/** The approval as a file beside the state (mode 0600). */
export function fileApprovals(file: string): Approvals {
  return {
    shown: file,
    async give(digest) {
      await fs.promises.writeFile(file, JSON.stringify({ config_digest: digest, approved_at: new Date().toISOString() }) + '\n', { mode: 0o600 });
    },
    waiting: async () => fs.existsSync(file),
    async take(digest) {
      let approved: unknown;
      try {
        approved = JSON.parse(await fs.promises.readFile(file, 'utf8'));
      } catch {
        return false;
      }
      await fs.promises.rm(file, { force: true });
      return (approved as { config_digest?: unknown } | null)?.config_digest === digest;
    },
  };
}
