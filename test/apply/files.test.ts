import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { secretFileName } from '../../src/apply/index.js';
import { lostSecrets, renderApplyResult } from '../../src/cli/result.js';
import type { Action } from '../../src/plan/types.js';
import type { Json } from '../../src/util/json.js';
import { action, createAction, harness, plan } from './helpers.js';

const SECRET = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgesync-apply-'));
});

const tokenCreate = () => createAction('deploy-bot', { kind: 'ApiToken', operation: 'createToken', record: { request: { name: 'deploy-bot' }, hash: 'h' } });
const tokenRoll = () => action('deploy-bot', { kind: 'ApiToken', change: 'roll', operation: 'rollToken', record: { memo: { rotate: 2 } } });
const readSecret = (action: Action) => (result: unknown) =>
  action.change === 'create' ? { remoteId: 'tok-1', secret: (result as { value: string }).value } : { secret: result as string };

describe('token secrets', () => {
  it('writes the secret to <secretsDir>/<name>, mode 0600 in a 0700 folder', async () => {
    const secrets = path.join(dir, 'secrets');
    const h = harness(() => ({ value: SECRET }), { secretsDir: secrets, interpret: (a, r) => readSecret(a)(r) });
    const result = await h.execute(plan([tokenCreate()]));
    const file = path.join(secrets, 'deploy-bot');
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    expect(readdirSync(secrets)).toEqual(['deploy-bot']);
    expect(result.succeeded[0]).toMatchObject({ remoteId: 'tok-1', secretFile: file });
  });

  it('replaces the secret when the token is rolled', async () => {
    const secrets = path.join(dir, 'secrets');
    let value = SECRET;
    const h = harness((call) => (call.op === 'createToken' ? { value } : value), { secretsDir: secrets, interpret: (a, r) => readSecret(a)(r) });
    await h.execute(plan([tokenCreate()]));
    value = `${SECRET}-rolled`;
    await h.execute(plan([tokenRoll()]));
    expect(readFileSync(path.join(secrets, 'deploy-bot'), 'utf8')).toBe(`${SECRET}-rolled`);
    expect((await h.state.get('ApiToken/deploy-bot'))?.memo).toEqual({ rotate: 2 });
  });

  it('never puts the secret in logs, results, state, hooks or errors', async () => {
    const secrets = path.join(dir, 'secrets');
    const seen: unknown[] = [];
    const collect = (...args: unknown[]) => seen.push(args);
    const h = harness(() => ({ value: SECRET }), {
      secretsDir: secrets,
      interpret: (a, r) => ({ ...readSecret(a)(r), warning: 'created' }),
      hooks: { onActionStart: collect, onActionEnd: collect, onProgress: collect, onRetry: collect },
    });
    const result = await h.execute(plan([tokenCreate(), tokenRoll()]));
    expect(readFileSync(path.join(secrets, 'deploy-bot'), 'utf8')).toBe(SECRET);
    const everything = JSON.stringify({ result, lines: h.lines, journal: h.state.journal, resources: [...h.state.resources], seen });
    expect(h.lines.length).toBeGreaterThan(0);
    expect(everything).not.toContain(SECRET);
  });

  it('secret first, state second: a failed secret write is reported, and the created token is still remembered', async () => {
    const blocker = path.join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const h = harness(() => ({ value: SECRET }), { secretsDir: path.join(blocker, 'secrets'), interpret: (a, r) => readSecret(a)(r) });
    const result = await h.execute(plan([tokenCreate()]));
    expect(await h.state.get('ApiToken/deploy-bot')).toMatchObject({ status: 'applied', remoteId: 'tok-1' });
    expect((await h.state.snapshot()).intents.size).toBe(0);
    expect(result.failed[0].error).toMatch(/token secret could not be written.*raise `rotate`/);
    expect(result.failed[0].secretLost).toMatch(/^the token secret could not be written to /);
    expect(renderApplyResult(result)).toMatch(/!! SECRET LOST: the new secret of ApiToken\/deploy-bot was received but could not be kept/);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('a roll whose secret cannot be written is recorded as failed, so the next run rolls again', async () => {
    const blocker = path.join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const h = harness(() => SECRET, { secretsDir: path.join(blocker, 'secrets'), interpret: (a, r) => readSecret(a)(r) });
    const result = await h.execute(plan([tokenRoll()]));
    expect(result.failed[0]).toMatchObject({ terminal: true, secretLost: expect.stringMatching(/could not be written/) });
    expect(lostSecrets(result)).toEqual([{ resource: 'ApiToken/deploy-bot', reason: expect.any(String) }]);
    expect(await h.state.get('ApiToken/deploy-bot')).toMatchObject({ status: 'failed' });
    expect(h.state.calls('recordSuccess')).toEqual([]);
  });

  it('keeps the secret where a handed-in sink says, leaving the secrets folder untouched', async () => {
    const secrets = path.join(dir, 'secrets');
    const kept: [string, string][] = [];
    const sink = {
      shown: 'state postgres://db (workspace prod)',
      write: async (name: string, secret: string) => (kept.push([name, secret]), 'state postgres://db (workspace prod), encrypted'),
      remove: async () => undefined,
    };
    const h = harness(() => ({ value: SECRET }), { secretsDir: secrets, secrets: sink, interpret: (a, r) => readSecret(a)(r) });
    const result = await h.execute(plan([tokenCreate()]));
    expect(kept).toEqual([['deploy-bot', SECRET]]);
    expect(result.succeeded[0]).toMatchObject({ secretFile: 'state postgres://db (workspace prod), encrypted' });
    expect(existsSync(secrets)).toBe(false);
    const failing = { ...sink, write: async () => Promise.reject(new Error('cannot open state postgres://db: connection refused')) };
    const lost = await harness(() => SECRET, { secretsDir: secrets, secrets: failing, interpret: (a, r) => readSecret(a)(r) }).execute(plan([tokenRoll()]));
    expect(lost.failed[0].secretLost).toBe('the token secret could not be written to state postgres://db (workspace prod): cannot open state postgres://db: connection refused');
  });

  it('names the file so that it cannot leave the folder or hide', () => {
    expect(secretFileName('deploy-bot')).toBe('deploy-bot');
    expect(secretFileName('../../etc/passwd')).not.toContain('/');
    expect(secretFileName('..')).not.toMatch(/^\./);
    expect(secretFileName('.hidden')).not.toMatch(/^\./);
  });
});

describe('AI run outputs', () => {
  const run = () => action('summary', { kind: 'AiRun', change: 'run', operation: 'runAi' });
  const writing = (rel: string, options: { outputsDir?: string; ownPaths?: string[] } = {}) =>
    harness(() => ({ response: 'a summary' }), { outputsDir: path.join(dir, 'root'), ...options, interpret: (_, result) => ({ output: { path: rel, content: result as Json } }) });

  it('writes the result as pretty JSON at its path below the outputs folder, replacing the old file whole', async () => {
    const out = path.join(dir, 'root', 'out', 'summary.json');
    const h = writing('out/summary.json');
    const result = await h.execute(plan([run()]));
    expect(readFileSync(out, 'utf8')).toBe('{\n  "response": "a summary"\n}\n');
    expect(result.succeeded[0].outputFile).toBe(out);
    await h.execute(plan([run()]));
    expect(readdirSync(path.dirname(out))).toEqual(['summary.json']);
  });

  it('writes the output owner-only (0600), since a model may answer anything, and narrows one an older run left wider', async () => {
    const out = path.join(dir, 'root', 'out', 'summary.json');
    const h = writing('out/summary.json');
    await h.execute(plan([run()]));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    chmodSync(out, 0o644);
    await h.execute(plan([run()]));
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('writes the bytes a model answered byte for byte, and says what they were', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]);
    const h = harness(() => ({}), { outputsDir: path.join(dir, 'root'), interpret: () => ({ output: { path: 'out/hero.png', content: null, bytes, contentType: 'image/png' } }) });
    const result = await h.execute(plan([run()]));
    expect(new Uint8Array(readFileSync(path.join(dir, 'root', 'out', 'hero.png')))).toEqual(bytes);
    expect(result.succeeded[0].received).toBe('image/png, 7 B');
  });

  it('records a failure when the output cannot be written, so the run is made again', async () => {
    mkdirSync(path.join(dir, 'root'));
    writeFileSync(path.join(dir, 'root', 'file'), '');
    const a = run();
    const h = writing('file/out.json');
    const result = await h.execute(plan([a]));
    expect(result.failed[0].error).toMatch(/^the output could not be written to file\/out\.json: /);
    expect((await h.state.get(a.resource))?.status).toBe('failed');
  });

  it('refuses a write that a symlink made since validate would carry out of the outputs folder', async () => {
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.join(dir, 'root'));
    symlinkSync(elsewhere, path.join(dir, 'root', 'out'));
    const result = await writing('out/summary.json').execute(plan([run()]));
    expect(result.failed[0].error).toContain('leads outside the outputs folder through a symlink: refused');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a write that a symlink would carry onto the state file, or onto a YAML file', async () => {
    const stateDir = path.join(dir, 'root', '.edgesync');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path.join(stateDir, 'state.db'), 'STATE');
    symlinkSync(stateDir, path.join(dir, 'root', 'out'));
    const onState = await writing('out/state.db', { ownPaths: [path.join(stateDir, 'state.db')] }).execute(plan([run()]));
    expect(onState.failed[0].error).toContain("is one of edgesync's own files");
    expect(readFileSync(path.join(stateDir, 'state.db'), 'utf8')).toBe('STATE');
    const onYaml = await writing('out/config.yaml').execute(plan([run()]));
    expect(onYaml.failed[0].error).toContain('is a YAML file');
  });

  it('refuses a path that leaves the outputs folder', async () => {
    for (const rel of ['../x.json', '/tmp/x.json']) {
      const result = await writing(rel).execute(plan([run()]));
      expect(result.failed[0].error).toContain('is not a path inside the outputs folder');
    }
    expect(readdirSync(dir)).not.toContain('x.json');
  });
});
