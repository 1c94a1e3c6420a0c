// Where the benchmark finds the command line and its own compiled scripts. It runs from bench/ (the
// sources, as the tests import them) or compiled from dist-bench/bench/ (`npm run bench`); the
// scripts it starts in a process or with `--import` of their own are always the compiled ones.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The compiled benchmark's folder (bench/tsconfig.json's outDir, then bench/). */
const DIST_BENCH = 'dist-bench';

/** The repository: one folder above bench/, two above dist-bench/bench/. */
const REPO = path.basename(path.dirname(here)) === DIST_BENCH ? path.resolve(here, '../..') : path.resolve(here, '..');

/** The command line as users run it, on the product built into dist/. */
export const BIN = path.join(REPO, 'bin/edgesync');

/** A compiled script of the benchmark (`'phase.js'`), as a path. */
export function benchScript(file: string): string {
  return path.join(REPO, DIST_BENCH, 'bench', file);
}
