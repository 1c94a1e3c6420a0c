// Where the composition root keeps token secrets: the folder without a key, a PostgreSQL state with
// one; a bad key or a key with a SQLite state refused before anything opens; which file names a token.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { folderSource } from '../../src/config/source.js';
import { composeRoot } from '../../src/engine/root.js';
import { secretPlaces, tokenNameOf } from '../../src/engine/secrets.js';
import { sqliteBackend } from '../../src/state/backend.js';
import { pgBackend } from '../../src/state/pg/backend.js';
import { systemClock } from '../../src/util/clock.js';

const key = randomBytes(32).toString('base64');
const pgState = pgBackend('postgres://edgesync:hunter2@db.internal:5432/edgesync', 'prod');

describe('where token secrets are kept', () => {
  it('is the secrets folder without EDGESYNC_SECRETS_KEY, whatever the state', () => {
    for (const state of [sqliteBackend('/var/lib/edgesync/state.db'), pgState]) {
      const places = secretPlaces(state, {}, '/var/lib/edgesync/secrets', systemClock);
      expect([places.sink.shown, places.lookup]).toEqual(['/var/lib/edgesync/secrets', undefined]);
    }
  });

  it('is the PostgreSQL state with the key, named without its user or password', () => {
    const places = secretPlaces(pgState, { EDGESYNC_SECRETS_KEY: key }, '/srv/secrets', systemClock);
    expect(places.sink.shown).toBe('state postgres://***@db.internal:5432/edgesync (workspace prod)');
    expect(places.lookup).toBeTypeOf('function');
  });

  it('refuses a key with a SQLite state, and a malformed key, when the root is built', () => {
    const root = (state = sqliteBackend('/var/lib/edgesync/state.db'), value = key) =>
      composeRoot({ source: folderSource('/srv/config'), state, env: { EDGESYNC_SECRETS_KEY: value } });
    expect(() => root()).toThrow(/^EDGESYNC_SECRETS_KEY is set, but it is only used with a PostgreSQL state and state \/var\/lib\/edgesync\/state\.db is a SQLite file/);
    expect(() => root(pgState, 'c2hvcnQ=')).toThrow(/^EDGESYNC_SECRETS_KEY must be 32 random bytes in base64 .*; got 5 bytes$/);
    expect(() => root(pgState)).not.toThrow();
  });

  it('reads a credential secret file as a token name only directly in the secrets folder, by the name the file would have', () => {
    expect(tokenNameOf('/srv/secrets/ci-deploy', '/srv/secrets')).toBe('ci-deploy');
    expect(tokenNameOf('/srv/secrets/%2Ehidden', '/srv/secrets')).toBe('.hidden');
    expect(tokenNameOf('/srv/secrets/team%2Fbot', '/srv/secrets')).toBe('team/bot');
    expect(tokenNameOf('/srv/secrets/sub/ci-deploy', '/srv/secrets')).toBeUndefined();
    expect(tokenNameOf('/etc/ci-deploy', '/srv/secrets')).toBeUndefined();
    expect(tokenNameOf('/srv/secrets/bad%zz', '/srv/secrets')).toBeUndefined();
    // Not a name secretFileName gives: "a b" is written as a%20b.
    expect(tokenNameOf('/srv/secrets/a b', '/srv/secrets')).toBeUndefined();
  });
});
