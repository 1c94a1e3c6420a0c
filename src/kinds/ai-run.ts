// AiRun (operation 14): runs a model when its input changes and writes the result to spec.output.
// The output path is kept relative to the config root, so every checkout of the config plans alike.

import path from 'node:path';
import { sha256, type Json } from '../util/json.js';
import { diffJson, isObject, sameJson } from './diff.js';
import { NOTHING, defineKind, pathParams, type KindBase } from './families.js';
import type { KindDecision, PlanContext } from './kind.js';
import { registerKind } from './registry.js';

const field = (request: Json | undefined, name: string): Json | undefined => (isObject(request) ? request[name] : undefined);

/** What the model is given: the JSON input, or the hash, type and size of the input file. */
const inputOf = (request: Json | undefined): Json | undefined => field(request, 'input') ?? field(request, 'input_file');

/** Content types of input files by extension; anything else goes as bytes. */
const MEDIA: Readonly<Record<string, string>> = {
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.webm': 'audio/webm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.json': 'application/json',
  '.txt': 'text/plain',
};

function mediaTypeOf(ref: string): string {
  return MEDIA[path.extname(ref).toLowerCase()] ?? 'application/octet-stream';
}

const base: KindBase = {
  kind: 'AiRun',
  scopeKeys: ['account', 'model'],
  paramMap: { account: 'account_identifier', model: 'model_name' },
  operations: ['runAi'],
  build: (doc, ctx) => {
    // Checked by the loader (inside the root, not config, state or secrets); '' only when refused.
    const output = ctx.outputPath(String(doc.spec?.output), ['spec', 'output']) ?? '';
    if (doc.spec?.inputFile !== undefined) {
      if (doc.spec.input !== undefined) ctx.issue(['spec', 'inputFile'], 'give either input or inputFile, not both');
      const ref = String(doc.spec.inputFile);
      const bytes = ctx.readFile(ref, ['spec', 'inputFile']);
      const content_type = mediaTypeOf(ref);
      // The file's hash decides when the model runs again; its bytes are sent, never kept.
      const input_file = { sha256: bytes ? sha256(bytes) : '', content_type, size: bytes?.length ?? 0 };
      const request: Json = { input_file, output };
      return { request, payload: { content_type, bytes: new Uint8Array(bytes ?? []) } };
    }
    if (doc.spec?.input === undefined) ctx.issue(['spec'], 'expected input (the JSON sent to the model) or inputFile (a file whose bytes are sent)');
    const input = (doc.spec?.input ?? {}) as Json;
    // A streamed answer is a series of events, not an output to write: refused rather than half-kept.
    if (isObject(input) && input.stream === true)
      ctx.issue(['spec', 'input', 'stream'], 'stream: true asks for a streamed answer (server-sent events), which edgesync does not keep; leave it out');
    const request: Json = { input, output };
    return { request };
  },
  targets: (self) => [{ what: `the output file ${String(field(self.request, 'output'))}`, at: ['spec', 'output'] }],
  // A run writes its output: that write is not a change of the config.
  writes: (self) => {
    const output = field(self.request, 'output');
    return typeof output === 'string' && output !== '' ? [output] : [];
  },
  // Running the model again is a new answer, not the applied one sent again.
  resend: () => ({ refused: 'an AiRun is a run: the model runs again only when its input changes, never to re-send it' }),
  // Its output file is the config's own (inside the root): nothing remote stays behind.
  leavesNothing: 'a model run leaves nothing to remove',
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
  const input = inputOf(desired.request);
  if (before !== undefined && sameJson(inputOf(before), input)) {
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
    // A file's bytes go as they are; JSON input as JSON.
    body: field(desired.request, 'input_file') !== undefined ? desired.payload : input,
    diff: diffJson(before ?? {}, desired.request),
    record: { request: desired.request, hash: desired.hash },
  } as const;
  return { ...NOTHING, actions: [action] };
}

/** An answer that is not JSON (an image model's PNG): its content type and bytes, from the client. */
function binary(result: unknown): { content_type: string; bytes: Uint8Array } | undefined {
  const r = result as { content_type?: unknown; bytes?: unknown } | null;
  return r && typeof r === 'object' && r.bytes instanceof Uint8Array && typeof r.content_type === 'string' ? { content_type: r.content_type, bytes: r.bytes } : undefined;
}

registerKind(
  defineKind(base, plan, (action, result, { desired }) => {
    if (action.change !== 'run') return {};
    const path = String(field(desired.request, 'output'));
    const raw = binary(result);
    // The bytes go to the output file only; state keeps what they were and how many.
    if (raw) return { output: { path, content: null, bytes: raw.bytes, contentType: raw.content_type }, memo: { content_type: raw.content_type, size: raw.bytes.length } };
    return { output: { path, content: (result ?? null) as Json } };
  }),
);
