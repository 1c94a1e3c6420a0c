// AiRun (operation 14): runs a model when its input changes and writes the result to spec.output.
// The output path is resolved against the YAML file's folder; moving it alone does not re-run.

import { dirname, resolve } from 'node:path';
import type { Json } from '../util/json.js';
import { diffJson, isObject, sameJson } from './diff.js';
import { NOTHING, defineKind, pathParams, type KindBase } from './families.js';
import type { KindDecision, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

const base: KindBase = {
  kind: 'AiRun',
  scopeKeys: ['account', 'model'],
  paramMap: { account: 'account_identifier', model: 'model_name' },
  build: (doc) => ({
    request: { input: (doc.spec?.input ?? {}) as Json, output: resolve(dirname(doc.file), String(doc.spec?.output)) },
  }),
};

const field = (request: Json | undefined, name: string): Json | undefined => (isObject(request) ? request[name] : undefined);

function plan({ desired, applied }: PlanContext): KindDecision {
  const before = applied?.request;
  const input = field(desired.request, 'input');
  if (before !== undefined && sameJson(field(before, 'input'), input)) {
    if (sameJson(before, desired.request)) return NOTHING;
    // Only the output moved: remember the new place; the next run writes there.
    const note = `output moved to ${String(field(desired.request, 'output'))}: the model runs again only when its input changes`;
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
