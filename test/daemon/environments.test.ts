// `edgesync watch --env staging` as a process: an edit to an overlay under environments/staging/
// reaches the emulator, as an edit to a document of the root does.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { copyFixture, TOKEN, waitFor } from './harness.js';
import { spawnWatch } from './processes.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const OVERLAY = `kind: AccessOrganization
metadata:
  name: organization
spec:
  name: Example Staging
`;

describe('edgesync watch --env staging', () => {
  it("applies an edit to the environment's overlay, keeping the root's values the overlay leaves alone", async () => {
    const emu = await startEmulator({ port: 0, tokens: [TOKEN] });
    cleanup.push(() => emu.close());
    const { dir, root } = copyFixture('small-root');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const overlay = path.join(root, 'environments', 'staging', 'organization.yaml');
    fs.mkdirSync(path.dirname(overlay), { recursive: true });
    fs.writeFileSync(overlay, OVERLAY);
    const child = spawnWatch(['--config', root, '--state', path.join(dir, 'state', 'state.db'), '--base-url', emu.url], cleanup, { EDGESYNC_ENV: 'staging' });
    const organization = () => emu.state().organizations[0];
    await waitFor("the overlay's name, applied", () => organization()?.name === 'Example Staging', 15_000);
    fs.writeFileSync(overlay, OVERLAY.replace('Example Staging', 'Example QA'));
    await waitFor("the overlay's edit, applied", () => organization()?.name === 'Example QA', 15_000);
    expect(organization()).toMatchObject({ name: 'Example QA', auth_domain: 'example.cloudflareaccess.com' });
    child.kill('SIGTERM');
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
  });
});
