// Which credential signs each resource, and every way a Credentials document can be wrong: each an
// error at file:line, naming the variable or the file, never a secret.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import { tempRoot } from './helpers.js';

const CRED = (name: string, spec: string) => `apiVersion: edgesync/v1\nkind: Credentials\nmetadata:\n  name: ${name}\nspec:\n${spec}\n---\n`;
const LIST = (name: string, account: string, extra = '') =>
  `apiVersion: edgesync/v1\nkind: GatewayList\nmetadata:\n  name: ${name}\n  account: "${account}"\n${extra}spec:\n  name: ${name}\n  type: IP\n---\n`;
const PROFILE = (extra = '') => `apiVersion: edgesync/v1\nkind: UserProfile\nmetadata:\n  name: me\n${extra}spec:\n  country: IE\n---\n`;

const env = { A_TOKEN: 'secret-value-a-0123456789', B_KEY: 'secret-value-b-0123456789', B_EMAIL: 'ops@example.com' };

async function load(files: Record<string, string>, options: { env?: Record<string, string>; secrets?: string } = {}) {
  const root = tempRoot(files);
  return loadConfig({ root, env: options.env ?? env, ...(options.secrets && { secrets: options.secrets }) });
}

const credentialOf = async (files: Record<string, string>) => {
  const r = await load(files);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return Object.fromEntries(r.resources.filter((x) => x.kind !== 'Credentials').map((x) => [x.name, x.credential ?? null]));
};

describe('which credential signs a resource', () => {
  it('is the one metadata.credentials names, else the one holding its account, else the default, else the environment token', async () => {
    const creds =
      CRED('a', '  secret: { env: A_TOKEN }\n  accounts: ["0123456789abcdef0123456789abcdef"]') +
      CRED('b', '  type: apiKey\n  secret: { env: B_KEY }\n  email: { env: B_EMAIL }\n  default: true');
    expect(
      await credentialOf({
        'c.yaml': creds,
        'r.yaml':
          LIST('in-a', '0123456789abcdef0123456789abcdef') +
          LIST('named', '0123456789abcdef0123456789abcdef', '  credentials: b\n') +
          LIST('other', 'fedcba9876543210fedcba9876543210') +
          PROFILE(),
      }),
    ).toEqual({ 'in-a': 'a', named: 'b', other: 'b', me: 'b' });
    expect(
      await credentialOf({
        'c.yaml': CRED('a', '  secret: { env: A_TOKEN }\n  accounts: ["0123456789abcdef0123456789abcdef"]'),
        'r.yaml': LIST('other', 'fedcba9876543210fedcba9876543210'),
      }),
    ).toEqual({ other: null });
  });

  it('never carries the secret in the resource: only where it is read', async () => {
    const r = await load({ 'c.yaml': CRED('a', '  secret: { env: A_TOKEN }') });
    expect(JSON.stringify(r)).not.toContain(env.A_TOKEN);
    expect(r.ok && r.resources[0]!.request).toEqual({ type: 'bearer', secret: { env: 'A_TOKEN' }, accounts: [], default: false });
  });
});

describe('a Credentials document is refused', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    [
      'with the secret written inline',
      { 'c.yaml': CRED('a', '  secret: literally-the-token') },
      'spec.secret',
      /takes \{ env: NAME \} or \{ file: PATH \}, never the secret itself/,
    ],
    [
      'naming a variable that is not set',
      { 'c.yaml': CRED('a', '  secret: { env: UNSET_VAR }') },
      'spec.secret.env',
      /^UNSET_VAR is not set: credential a has no secret, and nothing is sent while one is missing$/,
    ],
    ['with an email on a bearer credential', { 'c.yaml': CRED('a', '  secret: { env: A_TOKEN }\n  email: x@example.com') }, 'spec.email', /a bearer credential takes no email/],
    ['as an apiKey without an email', { 'c.yaml': CRED('a', '  type: apiKey\n  secret: { env: A_TOKEN }') }, 'spec.email', /an apiKey credential needs email/],
    [
      'claiming an account another claims',
      {
        'c.yaml':
          CRED('a', '  secret: { env: A_TOKEN }\n  accounts: ["0123456789abcdef0123456789abcdef"]') +
          CRED('b', '  secret: { env: B_KEY }\n  accounts: ["0123456789abcdef0123456789abcdef"]'),
      },
      'spec.accounts[0]',
      /account 0123456789abcdef0123456789abcdef is claimed by credentials a and b/,
    ],
    [
      'as a second default',
      { 'c.yaml': CRED('a', '  secret: { env: A_TOKEN }\n  default: true') + CRED('b', '  secret: { env: B_KEY }\n  default: true') },
      'spec.default',
      /credentials a and b are both the default/,
    ],
    [
      'when a resource names an unknown one',
      { 'r.yaml': LIST('l', '0123456789abcdef0123456789abcdef', '  credentials: nope\n') },
      'metadata.credentials',
      /names credentials nope, which no Credentials document defines/,
    ],
    [
      'as a user service key for an operation other than 1 and 14',
      { 'c.yaml': CRED('svc', '  type: userServiceKey\n  secret: { env: A_TOKEN }'), 'r.yaml': PROFILE('  credentials: svc\n') },
      'metadata.credentials',
      /is signed by credentials svc, a user service key, which the interface takes only for putScriptContent and runAi; UserProfile calls editUser/,
    ],
  ];

  it.each(cases)('%s, at its file and line', async (_what, files, field, message) => {
    const r = await load(files);
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    const found = errors.find((e) => e.path === field);
    expect(found, JSON.stringify(errors)).toBeDefined();
    expect(found!.message).toMatch(message);
    expect(found!.line).toBeGreaterThan(1);
    for (const value of Object.values(env)) expect(JSON.stringify(errors)).not.toContain(value);
  });

  it('reading a secret file that is missing, or readable by group or others', async () => {
    const secrets = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-secrets-'));
    const missing = await load({ 'c.yaml': CRED('a', '  secret: { file: a.token }') }, { secrets });
    expect(!missing.ok && missing.errors[0]!.message).toBe(`${path.join(secrets, 'a.token')} does not exist: credential a has no secret, and nothing is sent while one is missing`);
    fs.writeFileSync(path.join(secrets, 'a.token'), 'file-secret-0123456789', { mode: 0o644 });
    fs.chmodSync(path.join(secrets, 'a.token'), 0o644);
    const open = await load({ 'c.yaml': CRED('a', '  secret: { file: a.token }') }, { secrets });
    expect(!open.ok && open.errors[0]!.message).toMatch(/a\.token is readable by group or others \(mode 644\): make it owner-only \(chmod 600\)/);
    fs.chmodSync(path.join(secrets, 'a.token'), 0o600);
    expect((await load({ 'c.yaml': CRED('a', '  secret: { file: a.token }') }, { secrets })).ok).toBe(true);
  });
});

describe('a load that sends nothing (checkSecrets: false, as validate loads)', () => {
  it('takes a credential whose variable is unset or whose file is missing, and still refuses a malformed reference', async () => {
    const unset = CRED('a', '  secret: { env: UNSET_VAR }') + CRED('b', '  type: apiKey\n  secret: { file: /nonexistent/b.key }\n  email: { env: UNSET_EMAIL }');
    expect((await loadConfig({ root: tempRoot({ 'c.yaml': unset }), env: {}, checkSecrets: false })).ok).toBe(true);
    expect((await loadConfig({ root: tempRoot({ 'c.yaml': unset }), env: {} })).ok).toBe(false);
    const inline = await loadConfig({ root: tempRoot({ 'c.yaml': CRED('a', '  secret: literally-the-token') }), env: {}, checkSecrets: false });
    expect(!inline.ok && inline.errors.map((e) => e.path)).toEqual(['spec.secret']);
  });
});

describe('a user-scope resource', () => {
  it('is another user under another credential: two profiles, two identities, no shared target', async () => {
    const creds = CRED('a', '  secret: { env: A_TOKEN }') + CRED('b', '  type: apiKey\n  secret: { env: B_KEY }\n  email: { env: B_EMAIL }');
    const profile = (name: string, cred: string) => `apiVersion: edgesync/v1\nkind: UserProfile\nmetadata:\n  name: ${name}\n  credentials: ${cred}\nspec:\n  country: IE\n---\n`;
    const r = await load({ 'c.yaml': creds, 'p.yaml': profile('me', 'a') + profile('me', 'b') });
    expect(r.ok && r.resources.filter((x) => x.kind === 'UserProfile').map((x) => [x.key, x.credential])).toEqual([
      ['UserProfile[credentials=a]/me', 'a'],
      ['UserProfile[credentials=b]/me', 'b'],
    ]);
    // Without metadata.credentials its key is what it always was: states made before credentials stay valid.
    const plain = await load({ 'p.yaml': PROFILE() });
    expect(plain.ok && plain.resources[0]!.key).toBe('UserProfile/me');
  });
});
