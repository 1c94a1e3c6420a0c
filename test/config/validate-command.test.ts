import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { register } from '../../src/cli/validate.js';
import { register as registerPlan } from '../../src/cli/plan.js';
import { FIXTURES, LIST, tempRoot } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  const program = new Command().exitOverride();
  register(program);
  await program.parseAsync(['node', 'edgesync', 'validate', ...args]);
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  return { stdout: out.join(''), stderr: err.join(''), exitCode };
}

test('a valid config prints one line per kind and a total, and exits 0', async () => {
  vi.stubEnv('LOCATION_NAME', 'Head office');
  const { stdout, stderr, exitCode } = await run('--config', path.join(FIXTURES, 'valid-multi-document'));
  expect(stdout.split('\n')).toEqual(['GatewayList' + ' '.repeat(6) + '1', 'GatewayLocation' + ' '.repeat(2) + '1', 'total' + ' '.repeat(12) + '2', '']);
  expect(stderr).toBe('');
  expect(exitCode ?? 0).toBe(0);
  vi.unstubAllEnvs();
});

test('an invalid config prints every error and a count on stderr, and exits 1', async () => {
  const { stdout, stderr, exitCode } = await run('--config', path.join(FIXTURES, 'several-errors'));
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(9);
  expect(lines[0]).toBe(`${path.join(FIXTURES, 'several-errors', 'lists.yaml')}:8:9  spec.type  expected one of SERIAL, URL, DOMAIN, EMAIL, IP, got "HOST"`);
  expect(lines[8]).toBe('8 errors in 3 files');
  expect(stdout).toBe('');
  expect(exitCode).toBe(1);
});

test('--json prints validity, resources and errors for machines', async () => {
  const bad = await run('--config', path.join(FIXTURES, 'unknown-field-typo'), '--json');
  const parsed = JSON.parse(bad.stdout);
  expect(parsed).toEqual({
    valid: false,
    resources: [],
    errors: [
      {
        file: path.join(FIXTURES, 'unknown-field-typo', 'list.yaml'),
        line: 9,
        col: 3,
        path: 'spec.descriptoin',
        message: 'unknown field "descriptoin" (not in the interface); did you mean "description"?',
      },
    ],
  });
  expect(bad.exitCode).toBe(1);

  vi.stubEnv('LOCATION_NAME', 'Head office');
  const good = JSON.parse((await run('--config', path.join(FIXTURES, 'valid-multi-document'), '--json')).stdout);
  vi.unstubAllEnvs();
  expect(good.valid).toBe(true);
  expect(good.resources.map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`)).toEqual(['GatewayList/blocked-domains', 'GatewayLocation/head-office']);
  expect(Object.keys(good.resources[0]).sort()).toEqual(['hash', 'key', 'kind', 'name', 'source']);
});

test('two documents aiming at one route are refused with both positions, also in --json', async () => {
  const dir = path.join(FIXTURES, 'two-routes-one-target');
  const { stdout, stderr, exitCode } = await run('--config', dir);
  expect(stderr).toBe(
    `${path.join(dir, 'api.yaml')}:6:10  metadata.route  WorkerRoute[zone=023e105f4ecef8ad9ca31a8372d0c353,route=9a7806061c88ada191ed06f989cc3dac]/api writes the same object as ` +
      `WorkerRoute[zone=023e105f4ecef8ad9ca31a8372d0c353,route=9a7806061c88ada191ed06f989cc3dac]/api-v2 at ${path.join(dir, 'api-v2.yaml')}:7:10 (route 9a7806061c88ada191ed06f989cc3dac of zone 023e105f4ecef8ad9ca31a8372d0c353): ` +
      'each would overwrite the other on every run; keep one document\n1 error in 1 file\n',
  );
  expect(stdout).toBe('');
  expect(exitCode).toBe(1);
  const json = JSON.parse((await run('--config', dir, '--json')).stdout);
  expect(json.errors).toEqual([expect.objectContaining({ file: path.join(dir, 'api.yaml'), line: 6, col: 10, path: 'metadata.route' })]);
});

test('a secrets folder inside the config root is refused like any config error, also in --json', async () => {
  const root = tempRoot({ 'lists.yaml': LIST('blocked'), 'secrets/lists.yaml': LIST('allowed') });
  const secrets = path.relative(process.cwd(), path.join(root, 'secrets'));
  // The state file beside the config puts the default secrets folder there too.
  const { stderr, exitCode } = await run('--config', root, '--state', path.join(root, 'state.db'));
  expect(stderr).toBe(
    `${secrets}:1:1  the secrets folder is inside the config root, where its files would be taken for config: pass \`--secrets DIR\` outside the root, or keep it under a dot-folder such as .edgesync/\n1 error in 1 file\n`,
  );
  expect(exitCode).toBe(1);
  const json = JSON.parse((await run('--config', root, '--secrets', path.join(root, 'secrets'), '--json')).stdout);
  expect(json).toMatchObject({ valid: false, errors: [{ file: secrets, line: 1, col: 1, path: '' }] });
  expect((await run('--config', root, '--secrets', path.join(path.dirname(root), 'elsewhere'))).exitCode ?? 0).toBe(0);
});

test('an AiRun output over the state file is refused at its file:line:col', async () => {
  const yaml =
    'apiVersion: edgesync/v1\nkind: AiRun\nmetadata:\n  name: summary\n  account: "0123456789abcdef0123456789abcdef"\n  model: m\nspec:\n  input: { prompt: hi }\n  output: state.db\n';
  const root = tempRoot({ 'ai.yaml': yaml });
  const { stderr, exitCode } = await run('--config', root, '--state', path.join(root, 'state.db'), '--secrets', path.join(root, '.edgesync', 'secrets'));
  expect(stderr).toBe(
    `${path.relative(process.cwd(), path.join(root, 'ai.yaml'))}:9:11  spec.output  "state.db" is one of edgesync's own files (the state or the secrets): refused\n1 error in 1 file\n`,
  );
  expect(exitCode).toBe(1);
});

test("a model name or a route climbing out of its path with '..' is refused at each value's file:line, all at once", async () => {
  const ai =
    'apiVersion: edgesync/v1\nkind: AiRun\nmetadata:\n  name: summary\n  account: "0123456789abcdef0123456789abcdef"\n  model: "@cf/../../../../../user/tokens"\nspec:\n  input: { name: stolen, policies: [] }\n  output: out.json\n';
  const route = 'apiVersion: edgesync/v1\nkind: WorkerRoute\nmetadata:\n  name: api\n  zone: ".."\n  route: ".."\nspec:\n  pattern: example.com/*\n';
  const root = tempRoot({ 'ai.yaml': ai, 'route.yaml': route });
  const { stderr, exitCode } = await run('--config', root);
  const at = (file: string) => path.relative(process.cwd(), path.join(root, file));
  expect(stderr.split('\n').map((line) => line.split('  ').slice(0, 2).join('  '))).toEqual([
    `${at('ai.yaml')}:6:10  metadata.model`,
    `${at('route.yaml')}:5:9  metadata.zone`,
    `${at('route.yaml')}:6:10  metadata.route`,
    '3 errors in 2 files',
    '',
  ]);
  expect(exitCode).toBe(1);
});

describe('credentials whose secrets are not on this machine', () => {
  const CRED = (name: string, spec: string) => `apiVersion: edgesync/v1\nkind: Credentials\nmetadata:\n  name: ${name}\nspec:\n${spec}\n---\n`;
  const files = {
    'credentials.yaml':
      CRED('main', '  secret: { env: EDGESYNC_TEST_UNSET_TOKEN }\n  default: true') +
      CRED('ops', '  type: apiKey\n  secret: { file: /nonexistent/ops.key }\n  email: { env: EDGESYNC_TEST_UNSET_EMAIL }\n  accounts: ["0123456789abcdef0123456789abcdef"]'),
    'lists.yaml': LIST('blocked'),
  };

  test('validate accepts a config whose credential variables are unset, since it sends nothing', async () => {
    const root = tempRoot(files);
    const { stdout, stderr, exitCode } = await run('--config', root, '--state', path.join(root, '.edgesync', 'state.db'));
    expect(stderr).toBe('');
    expect(exitCode ?? 0).toBe(0);
    expect(stdout).toContain('Credentials' + ' '.repeat(6) + '2');
  });

  test('validate still refuses a credential reference that is not { env: NAME } or { file: PATH }', async () => {
    const root = tempRoot({ 'credentials.yaml': CRED('main', '  secret: { env: "" }'), 'lists.yaml': LIST('blocked') });
    const { stderr, exitCode } = await run('--config', root, '--state', path.join(root, '.edgesync', 'state.db'));
    expect(stderr).toMatch(/credentials\.yaml:\d+:\d+ {2}spec\.secret {2}expected \{ env: NAME \} or \{ file: PATH \}: exactly one, a non-empty string\n/);
    expect(exitCode).toBe(1);
  });

  test('plan still refuses a credential whose variable is unset, naming it', async () => {
    const root = tempRoot(files);
    const program = new Command().exitOverride();
    registerPlan(program);
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
    await expect(program.parseAsync(['node', 'edgesync', 'plan', '--config', root, '--state', path.join(root, '.edgesync', 'state.db')])).rejects.toThrow(
      /nothing was planned or applied/,
    );
    expect(err.join('')).toMatch(/spec\.secret\.env {2}EDGESYNC_TEST_UNSET_TOKEN is not set: credential main has no secret/);
    expect(err.join('')).toMatch(/spec\.email\.env {2}EDGESYNC_TEST_UNSET_EMAIL is not set: credential ops has no email/);
  });
});

test('a typo in a field or a kind gets the closest name in the error', async () => {
  const root = tempRoot({
    'lists.yaml': LIST('blocked').replace('spec:\n', 'spec:\n  descripton: Addresses we refuse\n') + '---\n' + LIST('allowed').replace('kind: GatewayList', 'kind: GatewayLists'),
  });
  const { stderr, exitCode } = await run('--config', root, '--state', path.join(root, '.edgesync', 'state.db'));
  expect(exitCode).toBe(1);
  const file = path.relative(process.cwd(), path.join(root, 'lists.yaml'));
  expect(stderr).toContain(`${file}:7:3  spec.descripton  unknown field "descripton" (not in the interface); did you mean "description"?\n`);
  expect(stderr).toContain(`${file}:12:7  kind  unknown kind "GatewayLists"; did you mean GatewayList? Known kinds: AccessOrganization, AiRun, `);
});

test('a YAML indentation mistake is said in plain words with its fix, at file:line:col', async () => {
  const root = tempRoot({ 'lists.yaml': LIST('blocked').replace('  type: IP', '   type: IP') });
  const { stderr, exitCode } = await run('--config', root, '--state', path.join(root, '.edgesync', 'state.db'));
  expect(exitCode).toBe(1);
  const file = path.relative(process.cwd(), path.join(root, 'lists.yaml'));
  expect(stderr).toBe(
    `${file}:8:4  this line is indented deeper than "name" above it, so YAML reads it as more of name's value: indent it as "name" is (2 spaces)\n1 error in 1 file\n`,
  );
});
