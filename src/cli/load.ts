// Loading a config root for a command: every error printed as `file:line:col  field  message`,
// and a clear refusal (exit 1) so nothing is planned or applied from an invalid config.

import path from 'node:path';
import { formatError, type ConfigError } from '../config/errors.js';
import type { LoadResult } from '../config/index.js';
import type { DesiredResource } from '../kinds/kind.js';
import { plural } from '../util/format.js';
import { outputsDir, secretsDir, type CommonOptions } from './common.js';

export class ConfigRefused extends Error {
  override name = 'ConfigRefused';
}

/**
 * Paths that are edgesync's own (the state file with its WAL, journal and lock, the secrets
 * folder) and never config. A path that is the config root or holds it is left out: a state
 * file kept beside the config must not hide the config.
 */
export function ownPaths(opts: CommonOptions): string[] {
  const root = path.resolve(opts.config);
  const state = path.resolve(opts.state);
  const own = [state, `${state}-wal`, `${state}-shm`, `${state}-journal`, `${state}.lock`, secretsDir(opts)];
  return own.filter((p) => p !== root && !root.startsWith(p + path.sep));
}

/** The config loader with every kind registered, imported on use to keep `--help` and `emulator` quick. */
export async function configLoader(): Promise<typeof import('../config/index.js')> {
  await import('../kinds/index.js');
  return import('../config/index.js');
}

/** Loads the config root of `opts`, keeping edgesync's own files out. */
export async function loadRoot(opts: CommonOptions): Promise<LoadResult> {
  const { loadConfig } = await configLoader();
  return loadConfig({ root: path.resolve(opts.config), env: process.env, ignore: ownPaths(opts), secrets: secretsDir(opts), outputs: outputsDir(opts) });
}

/** "3 errors in 2 files". */
export function errorCount(errors: readonly ConfigError[]): string {
  return `${plural(errors.length, 'error')} in ${plural(new Set(errors.map((e) => e.file)).size, 'file')}`;
}

/** The desired model, or every error said (by `report`, else on stderr) and a ConfigRefused thrown. */
export async function loadOrRefuse(
  opts: CommonOptions,
  report?: (error: ConfigError) => void,
): Promise<readonly DesiredResource[]> {
  const result = await loadRoot(opts);
  if (result.ok) return result.resources;
  for (const e of result.errors) (report ?? ((x: ConfigError) => process.stderr.write(formatError(x) + '\n')))(e);
  throw new ConfigRefused(`${errorCount(result.errors)}: nothing was planned or applied.`);
}
