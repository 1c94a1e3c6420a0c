// After `tsc -p bench`: the product compiled into dist-bench/src/ reads its schemas and its
// package.json two folders above its modules (src/config/schema.ts, src/util/version.ts), as it
// does from dist/. dist-bench/ gets links to the repository's own, so both copies read the same.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(repo, 'dist-bench');
for (const name of ['schemas', 'package.json']) {
  const link = path.join(out, name);
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(path.join('..', name), link);
}
