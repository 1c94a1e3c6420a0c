// AiRun (operation 14): runs a model when its input changes and writes the result to spec.output.
// The output path is kept relative to the config root, so every checkout of the config plans alike.

import path from 'node:path';
import type { Json } from '../util/json.js';
import { diffJson, isObject, sameJson } from './diff.js';
import { NOTHING, defineKind, pathParams, type KindBase } from './families.js';
import type { KindDecision, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

const field = (request: Json | undefined, name: string): Json | undefined => (isObject(request) ? request[name] : undefined);

const base: KindBase = {
  kind: 'AiRun',
  scopeKeys: ['account', 'model'],
  paramMap: { account: 'account_identifier', model: 'model_name' },
  build: (doc, ctx) => ({
    // Checked by the loader (inside the root, not config, state or secrets); '' only when refused.
    request: { input: (doc.spec?.input ?? {}) as Json, output: ctx.outputPath(String(doc.spec?.output), ['spec', 'output']) ?? '' },
  }),
  targets: (self) => [{ what: `the output file ${String(field(self.request, 'output'))}`, at: ['spec', 'output'] }],
};

/**
 * Earlier versions recorded the output as an absolute path. One that ends with today's relative
 * path is the same file seen from some checkout: compared as today's path, it is no move.
 */
function normalised(before: Json, output: Json | undefined): Json {
  const old = field(before, 'output');
  if (!isObject(before) || typeof old !== 'string' || typeof output !== 'string' || !path.isAbsolute(old)) return before;
  return old.split(path.sep).join('/').endsWith(`/${output}`) ? { ...before, output } : before;
}

function plan({ desired, applied }: PlanContext): KindDecision {
  const output = field(desired.request, 'output');
  const before = applied?.request === undefined ? undefined : normalised(applied.request, output);
  const input = field(desired.request, 'input');
  if (before !== undefined && sameJson(field(before, 'input'), input)) {
    if (sameJson(before, desired.request)) return NOTHING;
    // Only the output moved: remember the new place; the next run writes there.
    const note = `output moved to ${String(output)}: the model runs again only when its input changes`;
    const adopt = { change: 'adopt', operation: null, params: {}, body: undefined, diff: diffJson(before, desired.request) } as const;
    return { ...NOTHING, actions: [{ ...adopt, record: { request: desired.request, hash: desired.hash } }], notes: [note] };
  }
  const action = {
    change: 'run',
    operation: 'runAi',
    params: pathParams(base, desired.scope),
    body: input,
    diff: diffJson(before ?? {}, desired.request),
    record: { request: desired.request, hash: desired.hash },
  } as const;
  return { ...NOTHING, actions: [action] };
}

export const aiRun = registerKind(
  defineKind(base, plan, (action, result, { desired }) =>
    action.change === 'run' ? { output: { path: String(field(desired.request, 'output')), content: (result ?? null) as Json } } : {},
  ),
);
