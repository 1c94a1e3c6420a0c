// `edgesync apply` keeps its run in the state's history beside the daemon's: the commit of the
// checkout holding the config, the counts, and the first errors; `state runs` reads them.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { apply, cli, emulator, workspace } from './harness.js';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'edgesync test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'edgesync test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

describe('the runs kept in the state', () => {
  it('names an apply with the commit the config was read at, and what came of it', async () => {
    const emu = await emulator();
    const ws = workspace();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.root, env: GIT_ENV, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'the config');
    const commit = git('rev-parse', 'HEAD');
    const applied = await apply(ws, emu);
    expect(applied.code).toBe(0);
    const again = await apply(ws, emu);
    expect(again.code).toBe(0);
    const runs = await cli(['state', 'runs', '--json', '--state', ws.state]);
    expect(runs.code).toBe(0);
    const kept = JSON.parse(runs.stdout) as { reason: string; result: string; revision: string; actions: number; succeeded: number }[];
    // The second apply had nothing to do: only runs that sent something are kept.
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ reason: 'apply', result: 'ok', revision: commit });
    expect(kept[0].actions).toBeGreaterThan(0);
    expect(kept[0].succeeded).toBe(kept[0].actions);
    const text = await cli(['state', 'runs', '--state', ws.state]);
    expect(text.stdout).toMatch(new RegExp(`ok\\s+apply\\s+${commit.slice(0, 12)} ${kept[0].actions}/${kept[0].actions} applied`));
  });
});
