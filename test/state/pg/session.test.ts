// A PostgreSQL session whose URL the driver cannot read (one that reached it without the command
// line's check) answers its first query with why at once, instead of leaving the caller waiting.

import { describe, expect, it } from 'vitest';
import { withSession } from '../../../src/state/pg/session.js';

describe('a PostgreSQL session', () => {
  it('answers at once, without the URL, when the driver cannot read its URL', async () => {
    await expect(withSession('postgres://edg:Secr3t#Pa55@127.0.0.1:1/db', 'state db (workspace prod)', async () => 'reached')).rejects.toThrow(
      /^cannot open state db \(workspace prod\): the PostgreSQL URL cannot be read by the driver \(ERR_INVALID_URL\)$/,
    );
  });
});
