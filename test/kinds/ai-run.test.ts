import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, applyDecision, desire, document, kindOf, plan, schemaErrors, tempRoot } from './helpers.js';

const MODEL = '@cf/meta/llama-3.1-8b-instruct';
const metadata = { name: 'summary', account: ACCOUNT, model: MODEL };
const spec = { input: { prompt: 'Summarise edgesync.' }, output: '../out/summary.json' };
const root = tempRoot();
const run = (s: Record<string, unknown> = spec) => desire('AiRun', metadata, s, { root, file: 'ai/run.yaml' }).desired;

describe('AiRun', () => {
  it('runs the model with the input as the body on first apply', () => {
    const [action] = plan(run()).actions;
    expect(action).toMatchObject({ change: 'run', operation: 'runAi', params: { account_identifier: ACCOUNT, model_name: MODEL }, body: spec.input });
  });

  it('writes the result to the output path, resolved against the YAML file folder and kept relative to the root, and keeps the result out of state', () => {
    const desired = run();
    const [action] = plan(desired).actions;
    const result = { response: 'A declarative sync daemon.' };
    expect(kindOf('AiRun').outcome(action!, result, { desired })).toEqual({ output: { path: 'out/summary.json', content: result } });
    expect(JSON.stringify(action!.record)).not.toContain('declarative sync daemon');
  });

  it('runs again only when the input changes', () => {
    const applied = applyDecision(run(), undefined, { run: { response: 'x' } });
    expect(plan(run(), applied).actions).toEqual([]);
    expect(plan(run({ ...spec, input: { prompt: 'Summarise it shorter.' } }), applied).actions.map((a) => a.change)).toEqual(['run']);
  });

  it('plans nothing in a fresh checkout of the config in another folder', () => {
    const applied = applyDecision(run(), undefined, { run: {} });
    const elsewhere = desire('AiRun', metadata, spec, { root: tempRoot(), file: 'ai/run.yaml' }).desired;
    expect(plan(elsewhere, applied)).toEqual({ actions: [], blocked: [], notes: [] });
  });

  it('plans nothing for a state that recorded the output as an absolute path, in this folder or another', () => {
    const applied = applyDecision(run(), undefined, { run: {} });
    for (const old of [path.join(root, 'out', 'summary.json'), '/srv/old-checkout/out/summary.json']) {
      const before = { ...applied, request: { input: spec.input, output: old } };
      expect(plan(run(), before)).toEqual({ actions: [], blocked: [], notes: [] });
    }
    const moved = { ...applied, request: { input: spec.input, output: '/srv/old-checkout/out/other.json' } };
    expect(plan(run(), moved).actions.map((a) => a.change)).toEqual(['adopt']);
  });

  it('records a moved output without running the model again', () => {
    const applied = applyDecision(run(), undefined, { run: {} });
    const decision = plan(run({ ...spec, output: '../out/other.json' }), applied);
    expect(decision.actions.map((a) => [a.change, a.operation])).toEqual([['adopt', null]]);
    expect(decision.notes).toEqual([expect.stringContaining('the model runs again only when its input changes')]);
    expect(kindOf('AiRun').outcome(decision.actions[0]!, undefined, { desired: run() })).toEqual({});
  });

  it('has a schema that keeps the input open but requires input and output', () => {
    expect(schemaErrors(document('AiRun', metadata, { input: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, output: 'o.json' }))).toEqual([]);
    expect(schemaErrors(document('AiRun', metadata, { input: {} }))).toContain("/spec must have required property 'output'");
    expect(schemaErrors(document('AiRun', { name: 'summary', account: ACCOUNT }, spec))).toContain("/metadata must have required property 'model'");
  });
});
