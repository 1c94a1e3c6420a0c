import { expect, test } from 'vitest';
import { createConfigCache, loadConfig } from '../../src/config/index.js';
import { LIST, errorsOf, tempRoot } from './helpers.js';

const files = (count: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`list-${String(i).padStart(2, '0')}.yaml`, LIST(`list-${i}`)]));

test('files read ahead of the one being parsed are built in file order', async () => {
  const root = tempRoot(files(12));
  const result = await loadConfig({ root, env: {} });
  expect(result.ok && result.resources.map((r) => r.name)).toEqual(Array.from({ length: 12 }, (_, i) => `list-${i}`));
});

test('a file that is not text, among files read ahead, is the one error, at its own file', async () => {
  const root = tempRoot({ ...files(12), 'list-05.yaml': 'apiVersion: edgesync/v1\u0000\n' });
  const errors = errorsOf(await loadConfig({ root, env: {} }));
  expect(errors).toEqual([expect.objectContaining({ file: expect.stringMatching(/list-05\.yaml$/), line: 1, col: 24, message: expect.stringContaining('binary content') })]);
});

test('a second load with a cache reads nothing again when no file changed', async () => {
  const root = tempRoot(files(12));
  const cache = createConfigCache();
  const first = await loadConfig({ root, env: {}, cache });
  expect(cache.counts).toMatchObject({ files: 12, read: 12, built: 12 });
  const second = await loadConfig({ root, env: {}, cache });
  expect(second.ok && first.ok && second.digest).toBe(first.ok && first.digest);
  // Racy stamps (written within the last moments) are read again; none is built again.
  expect(cache.counts.built).toBe(0);
});
