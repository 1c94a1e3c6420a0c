// Loading for a command: a secrets folder where its files would be taken for config is refused.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRoot } from '../../src/cli/load.js';
import { LIST, tempRoot } from '../config/helpers.js';

describe('a secrets folder inside the config root', () => {
  it('is refused with one error naming it and how to fix it, instead of dropping the YAML under it', async () => {
    const config = tempRoot({ 'lists.yaml': LIST('blocked'), 'secrets/more.yaml': LIST('allowed') });
    const result = await loadRoot({ config, state: path.join(config, '.edgesync', 'state.db'), secrets: path.join(config, 'secrets') });
    expect(result.ok ? result.resources.map((r) => r.name) : result.errors).toEqual([
      {
        file: path.relative(process.cwd(), path.join(config, 'secrets')),
        line: 1,
        col: 1,
        path: '',
        message:
          'the secrets folder is inside the config root, where its files would be taken for config: pass `--secrets DIR` outside the root, or keep it under a dot-folder such as .edgesync/',
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
