// A Worker upload's parts: the content type each module is sent with, by its extension.

import { extname } from 'node:path';

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
