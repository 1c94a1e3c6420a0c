// A Worker upload's parts: content types by extension, and the masking of secret_text bindings,
// whose values are sent but never stored, diffed or shown (only their keyed hash is kept).

import { extname } from 'node:path';
import type { Json } from '../util/json.js';
import { isObject } from './diff.js';

// The upload's shape is the client's: the kind builds exactly what putScriptContent sends.
export type { ScriptModule, ScriptUpload } from '../api/types.js';

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

const isSecretBinding = (binding: Json): binding is { [key: string]: Json } => isObject(binding) && binding.type === 'secret_text';

/**
 * The metadata as stored, with each secret_text binding's `text` taken out, and beside it the
 * hashes of those texts by binding name: a separate field, so a diff can mask it as a whole.
 */
export function redactMetadata(
  metadata: { [key: string]: Json },
  secretHash: (text: string) => string,
): { metadata: { [key: string]: Json }; secrets?: { [name: string]: string } } {
  if (!Array.isArray(metadata.bindings) || !metadata.bindings.some(isSecretBinding)) return { metadata };
  const secrets: { [name: string]: string } = {};
  const bindings = metadata.bindings.map((binding) => {
    if (!isSecretBinding(binding)) return binding;
    const { text, ...rest } = binding;
    secrets[String(binding.name)] = secretHash(typeof text === 'string' ? text : JSON.stringify(text ?? null));
    return rest;
  });
  return { metadata: { ...metadata, bindings }, secrets };
}

/** Diff paths of the secret hashes: shown by path only. */
export const isSecretPath = (path: string): boolean => path === 'secrets' || path.startsWith('secrets.');
