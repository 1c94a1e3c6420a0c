// A Worker upload's parts: content types by extension, and the masking of secret_text bindings,
// whose values are sent but never stored, diffed or shown (only their hash is kept).

import { extname } from 'node:path';
import { sha256, type Json } from '../util/json.js';
import { isObject } from './diff.js';

/** One multipart part of the content upload. */
export interface ScriptModule {
  readonly name: string;
  readonly content: Buffer;
  readonly contentType: string;
}

/** The body of putScriptContent: the `metadata` part plus one part per module. */
export interface ScriptUpload {
  readonly metadata: { readonly [key: string]: unknown };
  readonly modules: readonly ScriptModule[];
}

/** `esModules`: the upload names a main_module, so JavaScript parts are ES modules. */
export function contentTypeOf(name: string, esModules: boolean): string {
  switch (extname(name).toLowerCase()) {
    case '.js':
    case '.mjs':
      return esModules ? 'application/javascript+module' : 'application/javascript';
    case '.cjs':
      return 'application/javascript';
    case '.py':
      return 'text/x-python';
    case '.wasm':
      return 'application/wasm';
    case '.json':
      return 'application/json';
    case '.bin':
      return 'application/octet-stream';
    default:
      return 'text/plain';
  }
}

const isSecretBinding = (binding: unknown): boolean => isObject(binding) && binding.type === 'secret_text';

/** The metadata as stored: each secret_text binding's `text` replaced by `text_sha256`. */
export function redactMetadata(metadata: { [key: string]: Json }): { [key: string]: Json } {
  if (!Array.isArray(metadata.bindings)) return metadata;
  const bindings = metadata.bindings.map((binding) => {
    if (!isSecretBinding(binding) || !isObject(binding) || typeof binding.text !== 'string') return binding;
    const { text, ...rest } = binding;
    return { ...rest, text_sha256: sha256(text) };
  });
  return { ...metadata, bindings };
}

/** Diff paths that belong to a secret_text binding in either request: shown by path only. */
export function secretPaths(before: Json | undefined, after: Json): (path: string) => boolean {
  const secret = new Set<string>();
  for (const request of [before, after]) {
    const metadata = isObject(request) ? request.metadata : undefined;
    const bindings = isObject(metadata) && Array.isArray(metadata.bindings) ? metadata.bindings : [];
    bindings.forEach((binding, i) => isSecretBinding(binding) && secret.add(`metadata.bindings.${i}`));
  }
  return (path) => [...secret].some((prefix) => path === prefix || path.startsWith(`${prefix}.`));
}
