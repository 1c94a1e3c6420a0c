// A config that drops most of what was applied (an empty folder, a wrong --config) is refused by
// apply before any call, warned about by plan, and applied only with --allow-empty.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, cli, emulator, workspace } from './harness.js';

describe('an empty config over a full state', () => {
  it('is refused by apply, named by plan, and applied only with --allow-empty', async () => {
    const emu = await emulator();
    const ws = workspace();
    expect((await apply(ws, emu)).code).toBe(0);
    const empty = path.join(ws.dir, 'empty');
    fs.mkdirSync(empty);
    const args = ['--config', empty, '--state', ws.state, '--secrets', ws.secrets, '--base-url', emu.url];
    const mark = emu.requests().length;

    const refused = await cli(['apply', ...args]);
    // Held: nothing was sent, and a person must decide.
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /the config at .*empty has no document: 14 of 14 applied resources would be orphaned\. .* Nothing was applied; pass --allow-empty to go ahead\./,
    );
    expect(emu.requests().length).toBe(mark);

    const planned = await cli(['plan', '--config', empty, '--state', ws.state]);
    expect(planned.stderr).toMatch(/^warning: the config at .*empty has no document: .* `apply` refuses it without --allow-empty\.$/m);

    const allowed = await cli(['apply', ...args, '--allow-empty']);
    expect(allowed.code, allowed.stderr).toBe(0);
    // The model run leaves nothing to remove: forgotten, not orphaned.
    expect(allowed.stdout).toMatch(/13 orphaned, 1 forgotten/);
  });
});
