// Where a compiled module that runs on its own (a thread, a child process) is: beside the module
// asking, when that runs compiled, else under dist/ (running from the sources, as tests do).

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `beside` when it exists, else `fromSources`, as paths. */
export function compiledFile(beside: URL, fromSources: URL): string {
  const here = fileURLToPath(beside);
  return fs.existsSync(here) ? here : fileURLToPath(fromSources);
}
