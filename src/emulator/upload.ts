// Operation 1, the multipart script upload: module parts plus a `metadata` JSON object part;
// the main module is named in the metadata or a header and must be one of the parts, by part
// name or by file name (the provider's own SDK sends every module as a `files[]` part).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { operation, type Context } from './context.js';
import { badRequest } from './errors.js';
import { sha256 } from '../util/json.js';
import { compositeKey, isoTime } from './ids.js';
import type { JsonObject, ScriptRecord, StoredModule } from './types.js';
import { isPlainObject, typeName } from './validate.js';

const textLimit = 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

interface Part {
  /** The module's name: the part name, or its file name when several parts share one name (`files[]`). */
  name: string;
  readonly partName: string;
  readonly filename?: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

async function readParts(request: FastifyRequest): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const part of request.parts()) {
    const bytes = part.type === 'file' ? await part.toBuffer() : Buffer.from(String(part.value), 'utf8');
    const filename = part.type === 'file' && part.filename ? part.filename : undefined;
    parts.push({ name: part.fieldname, partName: part.fieldname, ...(filename && { filename }), contentType: part.mimetype, bytes });
  }
  const uses = new Map<string, number>();
  for (const part of parts) uses.set(part.partName, (uses.get(part.partName) ?? 0) + 1);
  for (const part of parts) if (uses.get(part.partName)! > 1 && part.filename) part.name = part.filename;
  return parts;
}

function parseMetadata(part: Part | undefined, problems: string[]): JsonObject {
  if (!part) {
    problems.push('metadata: required part missing');
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(part.bytes.toString('utf8'));
  } catch {
    problems.push('metadata: not valid JSON');
    return {};
  }
  if (!isPlainObject(parsed)) problems.push(`metadata: expected a JSON object, got ${typeName(parsed)}`);
  return isPlainObject(parsed) ? (parsed as JsonObject) : {};
}

/** Where the main module may be named, in the order that decides which one counts. */
function mainModuleNames(metadata: JsonObject, request: FastifyRequest, problems: string[]): [string, string][] {
  const named: [string, string][] = [];
  for (const field of ['main_module', 'body_part']) {
    const value = metadata[field];
    if (value === undefined) continue;
    if (typeof value === 'string') named.push([`metadata.${field}`, value]);
    else problems.push(`metadata.${field}: expected string, got ${typeName(value)}`);
  }
  // The provider's `CF-` prefix, and the document's neutral `SVC-` beside it.
  for (const header of ['cf-worker-main-module-part', 'cf-worker-body-part', 'svc-worker-main-module-part', 'svc-worker-body-part']) {
    const value = request.headers[header];
    if (typeof value === 'string') named.push([`header ${header.toUpperCase()}`, value]);
  }
  return named;
}

function describeModule(part: Part): StoredModule {
  const module: StoredModule = { name: part.name, content_type: part.contentType, size: part.bytes.length, sha256: sha256(part.bytes) };
  if (part.bytes.length > textLimit) return module;
  try {
    return { ...module, content: utf8.decode(part.bytes) };
  } catch {
    return module;
  }
}

export function registerUploadOperation(app: FastifyInstance, ctx: Context): void {
  const path = '/accounts/:account_identifier/workers/services/:service_name/environments/:environment_name/content';
  operation(app, ctx, 1, 'PUT', path, async (req, p) => {
    if (!req.isMultipart()) throw badRequest(['body: expected multipart/form-data with module parts and a `metadata` part']);
    const parts = await readParts(req);
    ctx.notes.set(req, { ...ctx.notes.get(req), parts: parts.map((part) => part.partName) });
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const part of parts) {
      if (seen.has(part.name)) problems.push(`${part.name}: part appears more than once`);
      seen.add(part.name);
    }
    const isMetadata = (part: Part) => part.partName === 'metadata';
    const metadata = parseMetadata(parts.find(isMetadata), problems);
    const modules = parts.filter((part) => !isMetadata(part));
    if (modules.length === 0) problems.push('body: at least one module part required');
    const named = mainModuleNames(metadata, req, problems);
    if (named.length === 0) {
      problems.push('metadata.main_module: the main module is named nowhere (metadata main_module or body_part, or header SVC-WORKER-MAIN-MODULE-PART or SVC-WORKER-BODY-PART)');
    }
    for (const [source, name] of named) {
      if (!modules.some((m) => m.partName === name || m.filename === name)) problems.push(`${source}: names part "${name}", which is not in the upload`);
    }
    if (problems.length > 0) throw badRequest(problems);
    return store(ctx, p, metadata, modules, named[0][1]);
  });
}

function store(ctx: Context, p: Record<string, string>, metadata: JsonObject, parts: Part[], main: string): JsonObject {
  const key = compositeKey(p.account_identifier, p.service_name, p.environment_name);
  const modules: StoredModule[] = parts.map(describeModule);
  // The bytes themselves, for the content read: a module's own name or, when main names it so, its file name.
  ctx.store.scriptModules.set(key, new Map(parts.map((part) => [part.name, part.bytes])));
  const now = isoTime(ctx.now());
  const etag = sha256(
    [...modules]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((m) => `${m.name}\u0000${m.sha256}\n`)
      .join(''),
  );
  const record: ScriptRecord = {
    account: p.account_identifier,
    service: p.service_name,
    environment: p.environment_name,
    id: p.service_name,
    etag,
    main_module: main,
    metadata,
    modules,
    created_on: ctx.store.scripts.get(key)?.created_on ?? now,
    modified_on: now,
  };
  ctx.store.scripts.set(key, record);
  return scriptAnswer(record);
}

/** The Worker script object of the upload's answer and of the script list, from what the upload stored. */
export function scriptAnswer(record: ScriptRecord): JsonObject {
  const { metadata } = record;
  const placement = metadata.placement;
  const result: JsonObject = {
    id: record.id,
    etag: record.etag,
    created_on: record.created_on,
    modified_on: record.modified_on,
    logpush: metadata.logpush === true,
    tail_consumers: Array.isArray(metadata.tail_consumers) ? metadata.tail_consumers : [],
    usage_model: typeof metadata.usage_model === 'string' ? metadata.usage_model : 'standard',
  };
  if (isPlainObject(placement) && typeof placement.mode === 'string') result.placement_mode = placement.mode;
  return result;
}
