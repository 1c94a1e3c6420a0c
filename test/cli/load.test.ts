// Which paths the commands keep out of the config: edgesync's own files, never the config itself.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRoot, ownPaths } from '../../src/cli/load.js';
import { LIST, tempRoot } from '../config/helpers.js';

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

describe('a secrets folder inside the config root', () => {
  it('is refused with one error naming it and how to fix it, instead of dropping the YAML under it', async () => {
    const config = tempRoot({ 'lists.yaml': LIST('blocked'), 'secrets/more.yaml': LIST('allowed') });
    const result = await loadRoot({ config, state: path.join(config, '.edgesync', 'state.db'), secrets: path.join(config, 'secrets') });
    expect(result.ok ? result.resources.map((r) => r.name) : result.errors).toEqual([
      {
        file: path.relative(process.cwd(), path.join(config, 'secrets')), line: 1, col: 1, path: '',
        message: 'the secrets folder is inside the config root, where its files would be taken for config: pass `--secrets DIR` outside the root, or keep it under a dot-folder such as .edgesync/',
      },
    ]);
  });

  it('is refused when it is the config root itself', async () => {
    const config = tempRoot({ 'lists.yaml': LIST('blocked') });
    const result = await loadRoot({ config, state: path.join(config, '.edgesync', 'state.db'), secrets: config });
    expect(result.ok).toBe(false);
  });

  it('is fine under a dot-folder, which is never config; the state file beside the config is fine too', async () => {
    const config = tempRoot({ 'lists.yaml': LIST('blocked') });
    fs.writeFileSync(path.join(config, 'state.db'), 'not yaml');
    const result = await loadRoot({ config, state: path.join(config, 'state.db'), secrets: path.join(config, '.edgesync', 'secrets') });
    expect(result.ok && result.resources.map((r) => r.name)).toEqual(['blocked']);
  });
});
