import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIgnoredPath } from '../../src/daemon/watcher.js';

const root = path.resolve('/srv/config');

describe('which changes under the config root count', () => {
  it.each([
    ['user/profile.yaml', false],
    ['workers/api/src/index.js', false],
    ['kv/pairs.json', false],
    ['.git/HEAD', true],
    ['.out/release-summary.json', true],
    ['user/.profile.yaml.swp', true],
    ['user/profile.yaml.swp', true],
    ['user/profile.yaml~', true],
    ['user/.#profile.yaml', true],
    ['user/4913', true],
    ['user/profile.yaml.tmp', true],
    ['node_modules/x/index.js', true],
    ['.edgesync/state.db-wal', true],
  ])('%s is ignored: %s', (rel, ignored) => {
    expect(isIgnoredPath(root, path.join(root, rel), new Set())).toBe(ignored);
  });

  it('ignores the state, the secrets and AI outputs given as paths, and everything under them', () => {
    const own = new Set([path.join(root, 'state'), path.join(root, 'secrets'), path.join(root, 'ai/summary.json')]);
    expect(isIgnoredPath(root, path.join(root, 'state/state.db'), own)).toBe(true);
    expect(isIgnoredPath(root, path.join(root, 'secrets/ci-deploy'), own)).toBe(true);
    expect(isIgnoredPath(root, path.join(root, 'ai/summary.json'), own)).toBe(true);
    expect(isIgnoredPath(root, path.join(root, 'ai/summary.yaml'), own)).toBe(false);
    expect(isIgnoredPath(root, path.join(root, 'statement.yaml'), own)).toBe(false);
  });

  it('does not ignore the root itself, whatever its own name', () => {
    expect(isIgnoredPath('/srv/.config', '/srv/.config', new Set())).toBe(false);
    expect(isIgnoredPath('/srv/.config', '/srv/.config/a.yaml', new Set())).toBe(false);
  });
});
