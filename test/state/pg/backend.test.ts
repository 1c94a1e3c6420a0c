// Each workspace of a PostgreSQL state has its own default secrets folder, so one workspace's token
// secrets never make another look like a lost state; the default workspace keeps today's folder.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLostSecrets } from '../../../src/state/file.js';
import { pgBackend, workspaceSecretsDir } from '../../../src/state/pg/backend.js';

const URL = 'postgres://edgesync@127.0.0.1:1/edgesync';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the secrets folder of a workspace', () => {
  it("is today's folder for the default workspace and a folder of its own below it for any other", () => {
    const local = path.resolve('.edgesync');
    expect(pgBackend(URL).defaultSecretsDir).toBe(path.join(local, 'secrets'));
    expect(pgBackend(URL, 'default').defaultSecretsDir).toBe(path.join(local, 'secrets'));
    expect(pgBackend(URL, 'staging').defaultSecretsDir).toBe(path.join(local, 'secrets', '@staging'));
    // A git source's clone and outputs stay beside, not in a secrets folder.
    expect(pgBackend(URL, 'staging').localDir).toBe(local);
    expect(workspaceSecretsDir('/x', 'prod')).toBe(path.join('/x', 'secrets', '@prod'));
  });

  it("of a new default workspace is not taken for a lost state for another workspace's secrets below it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-ws-secrets-'));
    dirs.push(dir);
    const shared = path.join(dir, 'secrets');
    fs.mkdirSync(path.join(shared, '@prod'), { recursive: true });
    fs.writeFileSync(path.join(shared, '@prod', 'ci-deploy'), 'secret');
    expect(() => checkLostSecrets('new', shared)).not.toThrow();
    expect(() => checkLostSecrets('new', path.join(shared, '@staging'))).not.toThrow();
    // Its own token secret still shows that a state was used.
    expect(() => checkLostSecrets('prod', path.join(shared, '@prod'))).toThrow(/holds 1 file\(s\) from earlier applies/);
    fs.writeFileSync(path.join(shared, 'ci-deploy'), 'secret');
    expect(() => checkLostSecrets('default', shared)).toThrow(/holds 1 file\(s\) from earlier applies/);
  });
});
