// Which paths the commands keep out of the config: edgesync's own files, never the config itself.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownPaths } from '../../src/cli/load.js';

describe('own paths kept out of the config', () => {
  it('ignores the state file, its WAL, journal and lock files, and the secrets folder', () => {
    const own = ownPaths({ config: '/srv/config', state: '/var/lib/edgesync/state.db', secrets: '/var/lib/edgesync/secrets' });
    expect(own).toEqual([
      '/var/lib/edgesync/state.db', '/var/lib/edgesync/state.db-wal', '/var/lib/edgesync/state.db-shm',
      '/var/lib/edgesync/state.db-journal', '/var/lib/edgesync/state.db.lock', '/var/lib/edgesync/secrets',
    ]);
  });

  it('does not hide the config when the state file sits in the folder above it', () => {
    const own = ownPaths({ config: '/srv/site/config', state: '/srv/site/state.db', secrets: '/srv/site' });
    expect(own).not.toContain('/srv/site');
    expect(own.some((p) => path.resolve('/srv/site/config').startsWith(p))).toBe(false);
  });

  it('does not hide the config when the secrets folder is the config root itself', () => {
    expect(ownPaths({ config: '/srv/config', state: '/srv/config/.edgesync/state.db', secrets: '/srv/config' })).not.toContain('/srv/config');
  });
});
