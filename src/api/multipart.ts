// The multipart body of operation 1: one part per module (named and filed by module name, with
// its content type) plus the `metadata` part as application/json; and the optional part headers.

import type { ScriptUpload } from './types.js';

// The provider's prefix; the document writes a neutral `SVC-` in its place.
export const BODY_PART_HEADER = 'CF-WORKER-BODY-PART';
export const MAIN_MODULE_PART_HEADER = 'CF-WORKER-MAIN-MODULE-PART';

/** A programming error in what the caller handed in; never sent. */
function invalid(problem: string): never {
  throw new TypeError(`putScriptContent needs a ScriptUpload: ${problem}`);
}

export function checkUpload(value: unknown): ScriptUpload {
  if (value === null || typeof value !== 'object') invalid('got no object');
  const upload = value as ScriptUpload;
  if (upload.metadata === null || typeof upload.metadata !== 'object' || Array.isArray(upload.metadata)) invalid('`metadata` must be an object');
  if (!Array.isArray(upload.modules)) invalid('`modules` must be an array');
  const names = new Set<string>();
  for (const m of upload.modules) {
    if (typeof m?.name !== 'string' || m.name === '') invalid('every module needs a name');
    if (m.name === 'metadata') invalid('a module cannot be named `metadata`');
    if (names.has(m.name)) invalid(`module \`${m.name}\` appears twice`);
    names.add(m.name);
    if (typeof m.content !== 'string' && !(m.content instanceof Uint8Array)) invalid(`module \`${m.name}\` needs string or Uint8Array content`);
    if (typeof m.contentType !== 'string' || m.contentType === '') invalid(`module \`${m.name}\` needs a content type`);
  }
  return upload;
}

export function scriptForm(upload: ScriptUpload): FormData {
  const form = new FormData();
  for (const m of upload.modules) {
    form.append(m.name, new Blob([m.content], { type: m.contentType }), m.name);
  }
  form.append('metadata', new Blob([JSON.stringify(upload.metadata)], { type: 'application/json' }), 'metadata.json');
  return form;
}

export function scriptHeaders(upload: ScriptUpload): Record<string, string> {
  const headers: Record<string, string> = {};
  if (upload.headers?.bodyPart) headers[BODY_PART_HEADER] = upload.headers.bodyPart;
  if (upload.headers?.mainModulePart) headers[MAIN_MODULE_PART_HEADER] = upload.headers.mainModulePart;
  return headers;
}
