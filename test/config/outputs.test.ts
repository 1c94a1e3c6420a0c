// Where an AiRun may write its result: inside the config root (or the outputs folder), never over
// config, the state or the secrets; refused at the output's line otherwise, and stored relative.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig, type LoadOptions } from '../../src/config/index.js';
import { errorsOf, tempRoot } from './helpers.js';

const RUN = (output: string) => `apiVersion: edgesync/v1
kind: AiRun
metadata:
  name: summary
  account: "0123456789abcdef0123456789abcdef"
  model: "@cf/meta/llama-3.1-8b-instruct"
spec:
  input: { prompt: Summarise edgesync. }
  output: ${JSON.stringify(output)}
`;

/** The one error of a root whose ai/run.yaml writes to `output`, at the output's line. */
async function refusal(output: string, files: Record<string, string> = {}, options: (root: string) => Partial<LoadOptions> = () => ({})) {
  const root = tempRoot({ 'ai/run.yaml': RUN(output), ...files });
  const errors = errorsOf(await loadConfig({ root, env: {}, ...options(root) }));
  expect(errors).toEqual([expect.objectContaining({ file: path.relative(process.cwd(), path.join(root, 'ai', 'run.yaml')), line: 9, col: 11, path: 'spec.output' })]);
  return errors[0].message;
}

describe('an AiRun output that would write outside its place is refused at spec.output', () => {
  test('a path leaving the config root', async () => {
    expect(await refusal('../../x.json')).toBe('"../../x.json" leaves the config root: refused');
  });

  test('an absolute path', async () => {
    expect(await refusal('/tmp/x.json')).toMatch(/^"\/tmp\/x\.json" is an absolute path: outputs are relative to the YAML file/);
  });

  test('the state file, and files beside it', async () => {
    const own = (root: string) => ({ ignore: [path.join(root, '.edgesync', 'state.db'), path.join(root, '.edgesync', 'state.db-wal')] });
    expect(await refusal('../.edgesync/state.db', {}, own)).toBe('"../.edgesync/state.db" is one of edgesync\'s own files (the state or the secrets): refused');
    expect(await refusal('../.edgesync/state.db-wal', {}, own)).toContain("edgesync's own files");
  });

  test('anything in the secrets folder', async () => {
    const secrets = (root: string) => ({ secrets: path.join(root, '.edgesync', 'secrets') });
    expect(await refusal('../.edgesync/secrets/ci-deploy', {}, secrets)).toContain("edgesync's own files");
  });

  test('a YAML file, which is config', async () => {
    expect(await refusal('run.yaml')).toBe('"run.yaml" is a YAML file, which is config: an output never replaces one');
    expect(await refusal('../new.yml')).toContain('is a YAML file');
  });

  test('a folder that a symlink carries out of the outputs folder', async () => {
    const outputs = tempRoot();
    fs.symlinkSync(tempRoot(), path.join(outputs, 'out'));
    const message = await refusal('../out/summary.json', {}, () => ({ outputs }));
    expect(message).toBe(`"../out/summary.json" leads outside the outputs folder (${outputs}) through a symlink: refused`);
  });

  test('a folder that a symlink carries onto the state', async () => {
    const message = await refusal('../out/state.db', {}, (root) => {
      fs.mkdirSync(path.join(root, '.edgesync'));
      fs.symlinkSync(path.join(root, '.edgesync'), path.join(root, 'out'));
      return { ignore: [path.join(root, '.edgesync', 'state.db')] };
    });
    expect(message).toContain("edgesync's own files");
  });
});

describe('an AiRun output that stays in its place', () => {
  test('is stored relative to the config root with / separators, whatever folder the root is in', async () => {
    const outputs = [];
    for (const root of [tempRoot({ 'ai/run.yaml': RUN('../.out/summary.json') }), tempRoot({ 'ai/run.yaml': RUN('../.out/summary.json') })]) {
      const loaded = await loadConfig({ root, env: {} });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      outputs.push(loaded.resources[0].request);
    }
    expect(outputs).toEqual([expect.objectContaining({ output: '.out/summary.json' }), expect.objectContaining({ output: '.out/summary.json' })]);
  });

  test('lands at the same place below --outputs DIR, which may be outside the root', async () => {
    const root = tempRoot({ 'ai/run.yaml': RUN('../results/summary.json') });
    const loaded = await loadConfig({ root, env: {}, outputs: path.join(tempRoot(), 'generated') });
    expect(loaded.ok && loaded.resources[0].request).toMatchObject({ output: 'results/summary.json' });
  });

  test('below --outputs DIR, still may not leave the root by its written path', async () => {
    expect(await refusal('../../x.json', {}, () => ({ outputs: tempRoot() }))).toBe('"../../x.json" leaves the config root: refused');
  });
});
