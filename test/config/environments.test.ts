import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createConfigCache, loadConfig, type LoadResult } from '../../src/config/index.js';
import { FIXTURES, errorsOf, loadFixture, tempRoot, WORKER } from './helpers.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const key = (name: string) => `GatewayList[account=${ACCOUNT}]/${name}`;

function resourcesOf(result: LoadResult) {
  if (!result.ok) throw new Error(`expected the config to load, got ${JSON.stringify(result.errors)}`);
  return new Map(result.resources.map((r) => [r.key, r]));
}

test('without --env, the environments folder is never read as documents', async () => {
  const resources = resourcesOf(await loadFixture('environment-staging'));
  expect([...resources.keys()].sort()).toEqual([key('allowed'), key('blocked')]);
  expect(resources.get(key('blocked'))!.request).toMatchObject({ description: 'Blocked everywhere' });
});

test('--env staging patches a value, deletes a document and adds one', async () => {
  const resources = resourcesOf(await loadFixture('environment-staging', { environment: 'staging' }));
  expect([...resources.keys()].sort()).toEqual([key('blocked'), key('testers')]);
  expect(resources.get(key('blocked'))!.request).toEqual({
    name: 'Blocked',
    description: 'Blocked in staging',
    type: 'DOMAIN',
    items: [{ value: 'malware.example.net' }, { value: 'test.example.com' }],
  });
});

test("a patched document's source is the base document, with the overlay that changed it", async () => {
  const resources = resourcesOf(await loadFixture('environment-staging', { environment: 'staging' }));
  const dir = path.join(FIXTURES, 'environment-staging');
  expect(resources.get(key('blocked'))!.source).toEqual({
    file: path.join(dir, 'lists.yaml'),
    line: 1,
    col: 1,
    overlay: { file: path.join(dir, 'environments', 'staging', 'lists.yaml'), line: 1, col: 1 },
  });
  expect(resources.get(key('testers'))!.source).toEqual({ file: path.join(dir, 'environments', 'staging', 'lists.yaml'), line: 15, col: 1 });
});

test('null in an overlay removes the field from the base document', async () => {
  const resources = resourcesOf(await loadFixture('environment-staging', { environment: 'production' }));
  expect(resources.get(key('blocked'))!.request).not.toHaveProperty('description');
});

test('an environment with no folder is refused, naming the environments there are', async () => {
  const errors = errorsOf(await loadFixture('environment-staging', { environment: 'prod' }));
  expect(errors).toEqual([
    {
      file: path.join(FIXTURES, 'environment-staging', 'environments', 'prod'),
      line: 1,
      col: 1,
      path: '',
      message: '--env prod: no folder environments/prod/ under the config root; the environments there: production, staging',
    },
  ]);
});

test('every overlay that cannot apply is refused at its place, all at once', async () => {
  const dir = path.join(FIXTURES, 'environment-overlay-errors', 'environments', 'staging');
  const base = path.join(FIXTURES, 'environment-overlay-errors', 'lists.yaml');
  const overlays = path.join(dir, 'overlays.yaml');
  const deletes = path.join(dir, 'deletes.yaml');
  expect(errorsOf(await loadFixture('environment-overlay-errors', { environment: 'staging' }))).toEqual([
    { file: deletes, line: 5, col: 10, path: '$delete', message: '$delete is true (remove the base document) or left out, got "yes"' },
    { file: deletes, line: 9, col: 9, path: 'metadata.name', message: 'deletes nothing: the base has no UserProfile named "me"' },
    {
      file: overlays,
      line: 3,
      col: 9,
      path: 'metadata.name',
      message: 'patches nothing: the base has no GatewayList named "blockd"; did you mean blocked?',
    },
    {
      file: overlays,
      line: 9,
      col: 9,
      path: 'metadata.name',
      message: `matches 2 documents of the base: GatewayList/blocked at ${base}:1:1; GatewayList/blocked at ${base}:10:1 (give its metadata.account to say which)`,
    },
    { file: overlays, line: 17, col: 19, path: 'spec.client_default', message: 'expected true or false, got "yes"' },
    {
      file: overlays,
      line: 21,
      col: 9,
      path: 'metadata.name',
      message: `GatewayLocation/office is overlaid twice in this environment: here and at ${overlays}:13:1; keep one`,
    },
  ]);
});

test('an error in a value the base wrote stays at the base, under an overlay that changed another', async () => {
  const root = tempRoot({
    'list.yaml': `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: l\n  account: "${ACCOUNT}"\nspec:\n  name: L\n  type: HOST\n`,
    'environments/staging/list.yaml': 'kind: GatewayList\nmetadata:\n  name: l\nspec:\n  description: staging\n',
  });
  const errors = errorsOf(await loadConfig({ root, env: {}, environment: 'staging' }));
  expect(errors).toEqual([expect.objectContaining({ file: path.relative(process.cwd(), path.join(root, 'list.yaml')), line: 8, col: 9, path: 'spec.type' })]);
});

test("a file an overlay names is read relative to the overlay's own file", async () => {
  const root = tempRoot({
    'worker.yaml': WORKER('src/index.js'),
    'src/index.js': 'export default {};\n',
    'environments/staging/worker.yaml': 'kind: WorkerScript\nmetadata:\n  name: api\nspec:\n  modules:\n    - name: index.js\n      file: staging.js\n',
  });
  const errors = errorsOf(await loadConfig({ root, env: {}, environment: 'staging' }));
  const overlay = path.relative(process.cwd(), path.join(root, 'environments', 'staging', 'worker.yaml'));
  expect(errors).toEqual([
    {
      file: overlay,
      line: 7,
      col: 13,
      path: 'spec.modules[0].file',
      message: `"staging.js" does not exist (looked for ${path.relative(process.cwd(), path.join(root, 'environments', 'staging', 'staging.js'))})`,
    },
  ]);
  fs.writeFileSync(path.join(root, 'environments', 'staging', 'staging.js'), 'export default { staging: true };\n');
  expect((await loadConfig({ root, env: {}, environment: 'staging' })).ok).toBe(true);
});

test('a load keeping what it read sees an edited overlay, and the base again without --env', async () => {
  const root = tempRoot({
    'list.yaml': `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: l\n  account: "${ACCOUNT}"\nspec:\n  name: L\n  type: IP\n`,
    'environments/staging/list.yaml': 'kind: GatewayList\nmetadata:\n  name: l\nspec:\n  description: first\n',
  });
  const cache = createConfigCache();
  const load = (environment?: string) => loadConfig({ root, env: {}, cache, ...(environment && { environment }) });
  expect(resourcesOf(await load('staging')).get(key('l'))!.request).toMatchObject({ description: 'first' });
  fs.writeFileSync(path.join(root, 'environments', 'staging', 'list.yaml'), 'kind: GatewayList\nmetadata:\n  name: l\nspec:\n  description: second\n');
  expect(resourcesOf(await load('staging')).get(key('l'))!.request).toMatchObject({ description: 'second' });
  expect(resourcesOf(await load()).get(key('l'))!.request).not.toHaveProperty('description');
});
