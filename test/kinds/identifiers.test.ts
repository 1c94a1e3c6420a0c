// What a value that becomes part of a request's path may be: the provider's identifier formats,
// refused at validate (so at plan and apply too) at the file, line and column of the value, every
// reason at once.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/kinds/index.js';
import { formatError, loadConfig } from '../../src/config/index.js';
import { checkAdoptedId, checkScopeValue } from '../../src/kinds/identifiers.js';
import { errorsOf, tempRoot } from '../config/helpers.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
/** The same 32 characters with a Cyrillic 'а' (U+0430) for the Latin 'a' at position 27: it reads the same. */
const LOOKALIKE = '0123456789abcdef0123456789\u0430bcdef';

const doc = (kind: string, metadata: string, spec: string) => `apiVersion: edgesync/v1\nkind: ${kind}\nmetadata:\n${metadata}spec:\n${spec}`;
const shown = (root: string, file: string) => path.relative(process.cwd(), path.join(root, file));

async function refusals(files: Record<string, string>, env: Record<string, string> = {}) {
  const root = tempRoot(files);
  return { root, errors: errorsOf(await loadConfig({ root, env })) };
}

describe('validate refuses a path parameter that would send a call elsewhere', () => {
  it('refuses an AiRun model climbing out of its path with "..", at the model\'s line', async () => {
    const { root, errors } = await refusals({
      'ai/steal.yaml': doc(
        'AiRun',
        `  name: steal\n  account: ${ACCOUNT}\n  model: "@cf/../../../../../user/tokens"\n`,
        '  input: { name: stolen, policies: [] }\n  output: ../.out/token.json\n',
      ),
    });
    expect(errors.map(formatError)).toEqual([
      `${shown(root, 'ai/steal.yaml')}:6:10  metadata.model  model must be a model name such as @cf/meta/llama-3.1-8b-instruct: parts between slashes, each of letters, digits and @ . _ : -, none empty, '.' or '..'; found '..' as parts 2, 3, 4, 5 and 6, which a URL parser takes for the folder above`,
    ]);
  });

  it('refuses a WorkerRoute on zone ".." and route "..", both reasons at once, each at its line', async () => {
    const { root, errors } = await refusals({ 'route.yaml': doc('WorkerRoute', '  name: api\n  zone: ".."\n  route: ".."\n', '  pattern: example.com/*\n') });
    const file = shown(root, 'route.yaml');
    expect(errors.map(formatError)).toEqual([
      `${file}:5:9  metadata.zone  zone must be the Zone ID, 32 hexadecimal characters (0-9, a-f), as the dashboard shows it; found "..", which a URL parser takes for the folder above: the call would go to another endpoint`,
      `${file}:6:10  metadata.route  route must be the route's id, 32 hexadecimal characters (0-9, a-f), as the provider answers it; found "..", which a URL parser takes for the folder above: the call would go to another endpoint`,
    ]);
  });

  it("reports every refused value of every document together with the schema's own errors", async () => {
    const { errors } = await refusals({
      'a.yaml': doc(
        'WorkerScript',
        `  name: api\n  account: acc\n  service: ../api\n  environment: "."\n`,
        '  main_module: index.js\n  modules: [{ name: index.js, content: x }]\n  unknown: 1\n',
      ),
      'b.yaml': doc('KvPairs', `  name: site\n  account: ${ACCOUNT}\n  namespace: "%2e%2e"\n`, '  pairs: [{ key: a, value: b }]\n'),
      'c.yaml': doc('ApiToken', '  name: ci\n  id: ".."\n', '  name: CI\n  policies: []\n'),
    });
    expect(errors.map((e) => `${path.basename(e.file)}:${e.line} ${e.path}`)).toEqual([
      'a.yaml:5 metadata.account',
      'a.yaml:6 metadata.service',
      'a.yaml:7 metadata.environment',
      'a.yaml:11 spec.unknown',
      'b.yaml:6 metadata.namespace',
      'c.yaml:5 metadata.id',
    ]);
  });
});

describe('account ids', () => {
  it('refuses one holding a Cyrillic а, saying what an account id is and where the odd character sits', async () => {
    const list = (name: string, account: string) => doc('GatewayList', `  name: ${name}\n  account: "${account}"\n`, `  name: ${name}\n  type: IP\n`);
    const { root, errors } = await refusals({ 'lists.yaml': `${list('first', ACCOUNT)}---\n${list('second', LOOKALIKE)}` });
    expect(errors.map(formatError)).toEqual([
      `${shown(root, 'lists.yaml')}:14:12  metadata.account  account must be 32 hexadecimal characters (0-9, a-f), as the dashboard shows it; found a non-ASCII character 'а' (U+0430) at position 27`,
    ]);
  });

  it('is checked after ${VAR} interpolation, at the line of the reference', async () => {
    const { root, errors } = await refusals({ 'org.yaml': doc('AccessOrganization', '  name: org\n  account: ${ACCOUNT_ID}\n', '  name: Org\n') }, { ACCOUNT_ID: LOOKALIKE });
    expect(errors.map(formatError)).toEqual([
      expect.stringMatching(new RegExp(`^${shown(root, 'org.yaml')}:5:12  metadata\\.account  account must be 32 hexadecimal characters.*U\\+0430\\) at position 27$`)),
    ]);
  });

  it('refuses a short, uppercase or padded id in words a user can act on', () => {
    expect(checkScopeValue('account', 'acc')).toMatch(/found 3 characters$/);
    expect(checkScopeValue('account', ACCOUNT.toUpperCase())).toMatch(/found an uppercase 'A' at position 11 \(write it in lowercase\)$/);
    expect(checkScopeValue('account', `${ACCOUNT.slice(0, 31)}\u200b`)).toMatch(/found a non-ASCII character U\+200B at position 32$/);
    expect(checkScopeValue('account', ` ${ACCOUNT}`)).toMatch(/found a space at position 1, in 33 characters$/);
    expect(checkScopeValue('account', ACCOUNT)).toBeUndefined();
  });

  it("refuses a look-alike in a credential's accounts, where it would silently sign with another credential", async () => {
    const { errors } = await refusals(
      { 'creds.yaml': `apiVersion: edgesync/v1\nkind: Credentials\nmetadata:\n  name: prod\nspec:\n  secret: { env: TOKEN }\n  accounts: ["${ACCOUNT}", "${LOOKALIKE}"]\n` },
      { TOKEN: 'a-token-0123456789' },
    );
    expect(errors).toEqual([
      expect.objectContaining({ line: 7, path: 'spec.accounts[1]', message: expect.stringContaining("found a non-ASCII character 'а' (U+0430) at position 27") }),
    ]);
  });
});

describe('the other identifiers, as the provider forms them', () => {
  it('takes zone, route, KV namespace and token ids of 32 hexadecimal characters, and a list id as a UUID', () => {
    for (const key of ['zone', 'route', 'namespace']) {
      expect(checkScopeValue(key, '023e105f4ecef8ad9ca31a8372d0c353')).toBeUndefined();
      expect(checkScopeValue(key, 'zone-1')).toMatch(new RegExp(`^${key} must be .*32 hexadecimal characters`));
    }
    expect(checkAdoptedId('ApiToken', 'ed17574386854bf78a67040be0a770b0')).toBeUndefined();
    expect(checkAdoptedId('ApiToken', '../value')).toMatch(/^id must be the token's id, 32 hexadecimal/);
    expect(checkAdoptedId('GatewayList', 'f174e90a-fafe-4643-bbbc-4a0ed4fc8415')).toBeUndefined();
    expect(checkAdoptedId('GatewayList', '..')).toMatch(/^id must be the list's UUID/);
  });

  it('takes Worker names and environments of letters, digits, - and _', () => {
    expect(checkScopeValue('service', 'this-is_my_script-01')).toBeUndefined();
    expect(checkScopeValue('service', 'API')).toMatch(/uppercase 'A' at position 1/);
    expect(checkScopeValue('environment', 'production')).toBeUndefined();
    expect(checkScopeValue('environment', '..')).toMatch(/found "\.\."/);
  });

  it("takes the provider's model names, with their slashes, and a name with none", () => {
    for (const model of [
      '@cf/meta/llama-3.1-8b-instruct',
      '@hf/thebloke/deepseek-coder-6.7b-base-awq',
      '@cf/stabilityai/stable-diffusion-xl-base-1.0',
      '@cf/qwen/qwen1.5-0.5b-chat',
      '@cf/openai/whisper',
      'm',
    ]) {
      expect(checkScopeValue('model', model)).toBeUndefined();
    }
    expect(checkScopeValue('model', '@cf/./whisper')).toMatch(/found '\.' as part 2, which a URL parser takes for this folder$/);
    expect(checkScopeValue('model', '@cf//whisper')).toMatch(/found an empty part \(a double slash\)$/);
    expect(checkScopeValue('model', '@cf/whisper?x=1')).toMatch(/found '\?' at position 12$/);
  });

  it("refuses '.' and '..' in a scope key no rule names", () => {
    expect(checkScopeValue('widget', '..')).toMatch(/found "\.\."/);
    expect(checkScopeValue('widget', 'a/b')).toMatch(/found '\/' at position 2$/);
    expect(checkScopeValue('widget', 'w-1.2')).toBeUndefined();
  });
});
