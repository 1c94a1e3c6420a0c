// Approvals of a held plan, on both backends: given for one config, waiting until taken, taken once,
// and good only for the config they were given for.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { fileApprovals, type Approvals } from '../../src/state/approvals.js';
import { pgApprovals } from '../../src/state/pg/approvals.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-approvals-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const BACKENDS: [string, () => Approvals][] = [
  ['beside a SQLite state', () => fileApprovals(path.join(dir, `${randomBytes(4).toString('hex')}.approve`))],
  ['in a PostgreSQL workspace', () => pgApprovals(inject('pgUrl'), `approvals-${randomBytes(4).toString('hex')}`, 'state under test')],
];

describe.each(BACKENDS)('approvals %s', (_, make) => {
  it('wait once given, and are taken once, for the config they were given for', async () => {
    const approvals = make();
    expect(await approvals.waiting()).toBe(false);
    expect(await approvals.take('digest-a')).toBe(false);
    await approvals.give('digest-a');
    expect(await approvals.waiting()).toBe(true);
    expect(await approvals.take('digest-a')).toBe(true);
    expect(await approvals.waiting()).toBe(false);
    expect(await approvals.take('digest-a')).toBe(false);
  });

  it('do not approve another config, and are used up by trying it', async () => {
    const approvals = make();
    await approvals.give('digest-a');
    expect(await approvals.take('digest-b')).toBe(false);
    expect(await approvals.take('digest-a')).toBe(false);
  });

  it('keep only the latest approval', async () => {
    const approvals = make();
    await approvals.give('digest-a');
    await approvals.give('digest-b');
    expect(await approvals.take('digest-b')).toBe(true);
    expect(await approvals.waiting()).toBe(false);
  });
});
