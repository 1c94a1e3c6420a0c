// Two documents that write one remote object are refused at load: each would overwrite the other
// on every run while the plan says "No changes". The error is at the later one and names the first.

import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig, type ConfigError } from '../../src/config/index.js';
import { errorsOf, tempRoot } from './helpers.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';

async function errorsIn(files: Record<string, string>): Promise<{ root: string; errors: readonly ConfigError[] }> {
  const root = tempRoot(files);
  return { root, errors: errorsOf(await loadConfig({ root, env: {} })) };
}

const where = (root: string, file: string, line: number, col: number) => `${path.relative(process.cwd(), path.join(root, file))}:${line}:${col}`;

const profile = (name: string) => `apiVersion: edgesync/v1
kind: UserProfile
metadata:
  name: ${name}
spec:
  first_name: Sam
`;

const route = (name: string, script: string) => `apiVersion: edgesync/v1
kind: WorkerRoute
metadata:
  name: ${name}
  zone: 023e105f4ecef8ad9ca31a8372d0c353
  route: 9a7806061c88ada191ed06f989cc3dac
spec:
  pattern: example.com/api/*
  script: ${script}
`;

const kv = (name: string, keys: string[], namespace = '0f2ac74b498b48028cb68387c421e279') => `apiVersion: edgesync/v1
kind: KvPairs
metadata:
  name: ${name}
  account: "${ACCOUNT}"
  namespace: ${namespace}
spec:
  pairs:
${keys.map((k) => `    - key: ${k}\n      value: v-${name}`).join('\n')}
`;

describe('two documents aiming at one remote object', () => {
  test('two UserProfile documents are one error naming both documents', async () => {
    const { root, errors } = await errorsIn({ 'a.yaml': profile('me'), 'b.yaml': profile('me-again') });
    expect(errors).toEqual([
      {
        file: path.relative(process.cwd(), path.join(root, 'b.yaml')),
        line: 4,
        col: 9,
        path: 'metadata.name',
        message: `UserProfile/me-again writes the same object as UserProfile/me at ${where(root, 'a.yaml', 4, 9)} (the calling user's profile): each would overwrite the other on every run; keep one document`,
      },
    ]);
  });

  test('one document defined twice is only the identity error', async () => {
    const { errors } = await errorsIn({ 'a.yaml': profile('me'), 'b.yaml': profile('me') });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^UserProfile\/me is defined twice/)]);
  });

  test('two WorkerRoute documents with one zone and route are refused at the route', async () => {
    const { root, errors } = await errorsIn({ 'routes.yaml': `${route('api', 'api')}---\n${route('api-v2', 'api-v2')}` });
    expect(errors).toEqual([
      expect.objectContaining({
        line: 16,
        col: 10,
        path: 'metadata.route',
        message: expect.stringContaining(
          `same object as WorkerRoute[zone=023e105f4ecef8ad9ca31a8372d0c353,route=9a7806061c88ada191ed06f989cc3dac]/api at ${where(root, 'routes.yaml', 6, 10)} (route 9a7806061c88ada191ed06f989cc3dac of zone 023e105f4ecef8ad9ca31a8372d0c353)`,
        ),
      }),
      // Their one pattern too: the provider takes a pattern once per zone.
      expect.objectContaining({ path: 'spec.pattern', message: expect.stringContaining('(route pattern example.com/api/* of zone 023e105f4ecef8ad9ca31a8372d0c353)') }),
    ]);
  });

  test('two WorkerRoute documents of one pattern in a zone are refused at the pattern, a route to create among them', async () => {
    const fresh = route('api-v2', 'api-v2').replace(/\n {2}route: .*\n/, '\n');
    const { errors } = await errorsIn({ 'routes.yaml': `${route('api', 'api')}---\n${fresh}` });
    expect(errors).toEqual([
      expect.objectContaining({ path: 'spec.pattern', message: expect.stringContaining('(route pattern example.com/api/* of zone 023e105f4ecef8ad9ca31a8372d0c353)') }),
    ]);
  });

  test('two WorkerDomain documents attaching one hostname are refused at the hostname, whatever its case', async () => {
    const domain = (name: string, hostname: string) =>
      `apiVersion: edgesync/v1\nkind: WorkerDomain\nmetadata:\n  name: ${name}\n  account: "${ACCOUNT}"\nspec:\n  environment: production\n  hostname: ${hostname}\n  service: api\n  zone_id: 023e105f4ecef8ad9ca31a8372d0c353\n`;
    const { errors } = await errorsIn({ 'a.yaml': domain('api', 'api.example.com'), 'b.yaml': domain('api-upper', 'API.example.com') });
    expect(errors).toEqual([
      expect.objectContaining({
        line: 8,
        col: 13,
        path: 'spec.hostname',
        message: expect.stringContaining('(hostname api.example.com of account 0123456789abcdef0123456789abcdef)'),
      }),
    ]);
  });

  test('two account settings of one kind on one account are refused; on two accounts they are fine', async () => {
    const org = (name: string, account: string) =>
      `apiVersion: edgesync/v1\nkind: ConnectivitySettings\nmetadata:\n  name: ${name}\n  account: "${account}"\nspec:\n  icmp_proxy_enabled: true\n`;
    const { errors } = await errorsIn({ 'a.yaml': org('one', ACCOUNT), 'b.yaml': org('two', ACCOUNT) });
    expect(errors).toEqual([
      expect.objectContaining({ path: 'metadata.account', message: expect.stringContaining('(the connectivity settings of account 0123456789abcdef0123456789abcdef)') }),
    ]);
    const root = tempRoot({ 'a.yaml': org('one', ACCOUNT), 'b.yaml': org('two', 'fedcba9876543210fedcba9876543210') });
    expect((await loadConfig({ root, env: {} })).ok).toBe(true);
  });

  test('two POST documents adopting one metadata.id are refused at the id', async () => {
    const list = (name: string) =>
      `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: ${name}\n  account: "${ACCOUNT}"\n  id: 2c3e57e0-aaaa-bbbb-cccc-000000000001\nspec:\n  name: ${name}\n  type: IP\n`;
    const { errors } = await errorsIn({ 'a.yaml': list('blocked'), 'b.yaml': list('blocked-too') });
    expect(errors).toEqual([
      expect.objectContaining({
        path: 'metadata.id',
        message: expect.stringContaining('(GatewayList 2c3e57e0-aaaa-bbbb-cccc-000000000001 of account 0123456789abcdef0123456789abcdef)'),
      }),
    ]);
  });

  test('two AiRun documents writing one output file are refused at the output', async () => {
    const run = (name: string, output: string) =>
      `apiVersion: edgesync/v1\nkind: AiRun\nmetadata:\n  name: ${name}\n  account: "${ACCOUNT}"\n  model: m\nspec:\n  input: { prompt: ${name} }\n  output: ${output}\n`;
    const { errors } = await errorsIn({ 'a.yaml': run('first', 'out/summary.json'), 'ai/b.yaml': run('second', '../out/summary.json') });
    expect(errors).toEqual([expect.objectContaining({ line: 9, col: 11, path: 'spec.output', message: expect.stringContaining('(the output file out/summary.json)') })]);
  });
});

describe('two KvPairs documents on one namespace', () => {
  test('setting the same key is one error naming the key and both documents', async () => {
    const { root, errors } = await errorsIn({ 'a.yaml': kv('site', ['index', 'shared/flag']), 'b.yaml': kv('flags', ['shared/flag', 'other']) });
    expect(errors).toEqual([
      {
        file: path.relative(process.cwd(), path.join(root, 'b.yaml')),
        line: 6,
        col: 14,
        path: 'metadata.namespace',
        message: `KvPairs[account=0123456789abcdef0123456789abcdef,namespace=0f2ac74b498b48028cb68387c421e279]/flags writes key "shared/flag", which KvPairs[account=0123456789abcdef0123456789abcdef,namespace=0f2ac74b498b48028cb68387c421e279]/site at ${where(root, 'a.yaml', 6, 14)} also writes (KV namespace 0f2ac74b498b48028cb68387c421e279 of account 0123456789abcdef0123456789abcdef): each would overwrite the other on every run; keep each key in one document`,
      },
    ]);
  });

  test('many shared keys are named a few at a time, with a count of the rest', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const { errors } = await errorsIn({ 'a.yaml': kv('one', keys), 'b.yaml': kv('two', keys) });
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('writes keys "k00", "k01", "k02" and 9 more, which KvPairs');
  });

  test('different keys on one namespace, or one key on two namespaces, are fine', async () => {
    const apart = tempRoot({ 'a.yaml': kv('site', ['index']), 'b.yaml': kv('flags', ['flag']), 'c.yaml': kv('elsewhere', ['index'], '1f2ac74b498b48028cb68387c421e279') });
    const loaded = await loadConfig({ root: apart, env: {} });
    expect(loaded.ok && loaded.resources.length).toBe(3);
  });
});
