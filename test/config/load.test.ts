import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, errorsOf, loadFixture } from './helpers.js';

const at = (scenario: string, file: string, line: number, col: number, field: string, message: string) => ({
  file: path.join(FIXTURES, scenario, file),
  line,
  col,
  path: field,
  message: expect.stringContaining(message),
});

describe('each bad input is refused with its file, line, column and field, and nothing else', () => {
  const cases: [string, ReturnType<typeof at>[]][] = [
    [
      'malformed-yaml',
      [at('malformed-yaml', 'broken.yaml', 4, 9, '', 'this value holds ": " (a colon and a space), which YAML reads as the start of another field: quote it, as name: "a: b"')],
    ],
    ['unknown-kind', [at('unknown-kind', 'thing.yaml', 2, 7, 'kind', 'unknown kind "GatewayThing"; known kinds: AccessOrganization, AiRun, ApiToken')]],
    ['unknown-api-version', [at('unknown-api-version', 'list.yaml', 1, 13, 'apiVersion', 'expected "edgesync/v1", got "edgesync/v2"')]],
    ['missing-required-field', [at('missing-required-field', 'list.yaml', 6, 1, 'spec.name', 'missing required field "name"')]],
    ['wrong-type', [at('wrong-type', 'connectivity.yaml', 7, 23, 'spec.icmp_proxy_enabled', 'expected true or false, got "yes"')]],
    ['enum-outside-list', [at('enum-outside-list', 'list.yaml', 8, 9, 'spec.type', 'expected one of SERIAL, URL, DOMAIN, EMAIL, IP, got "HOST"')]],
    ['bad-duration', [at('bad-duration', 'organization.yaml', 8, 21, 'spec.session_duration', 'expected a duration like 24h or 2h45m, got "1 day"')]],
    ['bad-cidr', [at('bad-cidr', 'location.yaml', 9, 7, 'spec.networks[0]', 'expected an IPv4 network from /24 to /32 like 192.0.2.0/24, got "10.0.0.0"')]],
    ['bad-hostname', [at('bad-hostname', 'domain.yaml', 8, 13, 'spec.hostname', 'expected a hostname like example.com, got "api..example.com"')]],
    ['bad-date-time', [at('bad-date-time', 'token.yaml', 11, 15, 'spec.expires_on', 'expected a date-time like 2030-01-01T00:00:00Z, got "next tuesday"')]],
    ['unknown-field-typo', [at('unknown-field-typo', 'list.yaml', 9, 3, 'spec.descriptoin', 'unknown field "descriptoin" (not in the interface); did you mean "description"?')]],
    ['unset-variable', [at('unset-variable', 'list.yaml', 5, 12, 'metadata.account', 'environment variable ACCOUNT_ID is not set')]],
    ['missing-referenced-file', [at('missing-referenced-file', 'worker.yaml', 12, 13, 'spec.modules[0].file', '"src/index.js" does not exist')]],
    [
      'reference-outside-root',
      [
        at('reference-outside-root', 'worker.yaml', 12, 13, 'spec.modules[0].file', '"../secret.txt" leaves the config root'),
        at('reference-outside-root', 'worker.yaml', 14, 13, 'spec.modules[1].file', '"/etc/hostname" is an absolute path'),
      ],
    ],
    ['alias-bomb', [at('alias-bomb', 'bomb.yaml', 12, 40, 'spec.settings_by_rule_type.e[7]', 'alias expands past 100000 nodes')]],
  ];
  test.each(cases)('%s', async (scenario, expected) => {
    const result = await loadFixture(scenario);
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('resources');
    expect(errorsOf(result)).toEqual(expected);
  });
});

test('a duplicate identity is one error that names both places', async () => {
  const errors = errorsOf(await loadFixture('duplicate-identity'));
  const first = path.join(FIXTURES, 'duplicate-identity', 'first.yaml');
  expect(errors).toEqual([
    at('duplicate-identity', 'second.yaml', 5, 9, 'metadata.name', `GatewayList[account=0123456789abcdef0123456789abcdef]/blocked is defined twice: here and at ${first}:4:9`),
  ]);
});

test('several errors in several files are all reported at once, sorted by file and line', async () => {
  const errors = errorsOf(await loadFixture('several-errors'));
  const s = 'several-errors';
  expect(errors).toEqual([
    at(s, 'lists.yaml', 8, 9, 'spec.type', 'expected one of SERIAL'),
    at(s, 'lists.yaml', 15, 15, 'metadata.dependsOn[0]', 'depends on "GatewayList/missing", which no document defines'),
    at(s, 'lists.yaml', 16, 1, 'spec.name', 'missing required field "name"'),
    at(s, 'lists.yaml', 18, 7, 'spec.networks[0]', 'expected an IPv4 network from /24 to /32 like 192.0.2.0/24, got "10.0.0.0/33"'),
    at(s, 'token.yml', 1, 1, 'spec', 'missing required field "spec"'),
    at(s, 'token.yml', 4, 9, 'metadata.name', 'expected a string, got a list'),
    at(s, path.join('zero-trust', 'organization.yaml'), 7, 21, 'spec.session_duration', 'got "2 hours"'),
    at(s, path.join('zero-trust', 'organization.yaml'), 8, 3, 'spec.unknown', 'unknown field "unknown"'),
  ]);
});

describe('a valid multi-document file', () => {
  const env = { LOCATION_NAME: 'Head office' };

  test('gives one resource per document, skipping the empty one and the dot-folder', async () => {
    const result = await loadFixture('valid-multi-document', { env });
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    expect(result.resources.map((r) => [r.key, r.source.line])).toEqual([
      ['GatewayList[account=0123456789abcdef0123456789abcdef]/blocked-domains', 2],
      ['GatewayLocation[account=0123456789abcdef0123456789abcdef]/head-office', 14],
    ]);
    expect(result.files).toEqual([path.resolve(FIXTURES, 'valid-multi-document', 'zero-trust.yaml')]);
    expect(result.resources[1].dependsOn).toEqual(['GatewayList/blocked-domains']);
  });

  test('uses defaults for unset variables, the environment for set ones, and keeps $${ literal', async () => {
    const result = await loadFixture('valid-multi-document', { env });
    if (!result.ok) throw new Error('refused');
    const [list, location] = result.resources;
    expect(list.scope).toEqual({ account: '0123456789abcdef0123456789abcdef' });
    expect(JSON.stringify(list.request)).toContain('literal ${NOT_A_VARIABLE}');
    expect(JSON.stringify(location.request)).toContain('"Head office"');
  });

  test('has a digest that is stable and changes with any value', async () => {
    const a = await loadFixture('valid-multi-document', { env });
    const b = await loadFixture('valid-multi-document', { env });
    const c = await loadFixture('valid-multi-document', { env: { LOCATION_NAME: 'Branch office' } });
    if (!a.ok || !b.ok || !c.ok) throw new Error('refused');
    expect(a.digest).toBe(b.digest);
    expect(c.digest).not.toBe(a.digest);
  });
});
