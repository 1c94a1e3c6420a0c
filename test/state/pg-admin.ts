// A client of the test server's `postgres` database for the file's tests, connected before them and
// ended after: for what a test checks behind the store's back (rows, locks, sessions to cut).

import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

/** Registers the hooks; the returned function gives the connected client inside a test. */
export function adminClient(): () => pg.Client {
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: inject('pgUrl') });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });
  return () => {
    if (!admin) throw new Error('the admin client is used outside a test');
    return admin;
  };
}
