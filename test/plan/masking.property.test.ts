import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPlan, renderJson, renderText } from '../../src/plan/index.js';
import { applied, fakeKinds, resource, snapshot } from './fakes.js';

/** Any string, made recognisable so that finding it in an output can only mean it leaked. */
const secrets = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `SECRET<${s}>`);

describe('masking (properties)', () => {
  it('never shows a sensitive value, whatever it holds, in text, verbose text or JSON', async () => {
    await fc.assert(
      fc.asyncProperty(secrets, secrets, fc.boolean(), async (before, after, created) => {
        const token = resource('Token', 't', { request: { name: 'T', secret: after } });
        const state = snapshot({ resources: created ? [applied(token, { name: 'T', secret: before })] : [] });
        const plan = await buildPlan([token], state, fakeKinds);
        const outputs = [renderText(plan), renderText(plan, { verbose: true, color: true }), renderJson(plan)];
        for (const output of outputs) {
          for (const secret of [before, after]) {
            expect(output).not.toContain(secret);
            expect(output).not.toContain(JSON.stringify(secret).slice(1, -1));
          }
        }
      }),
    );
  });
});
