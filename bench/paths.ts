// Where the benchmark finds the command line and its own compiled scripts. It runs from bench/ (the
// sources, as the tests import them) or compiled from dist-bench/bench/ (`npm run bench`); the
// scripts it starts in a process or with `--import` of their own are always the compiled ones.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The compiled benchmark's folder (bench/tsconfig.json's outDir, then bench/). */
const DIST_BENCH = 'dist-bench';

/** The repository (this checkout): one folder above bench/, two above dist-bench/bench/. */
export const REPO = path.basename(path.dirname(here)) === DIST_BENCH ? path.resolve(here, '../..') : path.resolve(here, '..');

/** The command line as users run it, on the product built into dist/: the emulator's, always this checkout's. */
export const BIN = path.join(REPO, 'bin/edgesync');

/**
 * The variable naming another checkout, built (`dist/`, `dist-bench/`), whose edgesync is measured instead of this
 * one's: `--baseline` sets it for the runs of the older build. The emulator, the floors and the probe stay this checkout's.
 */
export const BUILD_ENV = 'EDGESYNC_BENCH_BUILD';

/** The checkout whose edgesync is measured. */
const BUILD = process.env[BUILD_ENV] ? path.resolve(process.env[BUILD_ENV]) : REPO;

/** The measured build's command line (`watch`, `plan`, `apply`…). */
export const BUILD_BIN = path.join(BUILD, 'bin/edgesync');

/** A compiled script of the measured build's benchmark that runs its product in process (`'phase.js'`). */
export function buildScript(file: string): string {
  return path.join(BUILD, DIST_BENCH, 'bench', file);
}

/** A compiled script of the benchmark (`'phase.js'`), as a path. */
export function benchScript(file: string): string {
  return path.join(REPO, DIST_BENCH, 'bench', file);
}
