// Loading a config root for a command: every error printed as `file:line:col  field  message`,
// and a clear refusal (exit 1) so nothing is planned or applied from an invalid config.

import path from 'node:path';
import { formatError } from '../config/errors.js';
import type { DesiredResource } from '../kinds/kind.js';
import type { CommonOptions } from './common.js';

export class ConfigRefused extends Error {
  override name = 'ConfigRefused';
}

/**
 * Paths that are edgesync's own (the state file with its WAL, journal and lock, the secrets
 * folder) and never config. A path that is the config root or holds it is left out: a state
 * file kept beside the config must not hide the config.
 */
export function ownPaths(opts: CommonOptions, secrets?: string): string[] {
  const root = path.resolve(opts.config);
  const state = path.resolve(opts.state);
  const own = [state, `${state}-wal`, `${state}-shm`, `${state}-journal`, `${state}.lock`, ...(secrets ? [path.resolve(secrets)] : [])];
  return own.filter((p) => p !== root && !root.startsWith(p + path.sep));
}

/** The config loader with every kind registered, imported on use to keep `--help` and `emulator` quick. */
export async function configLoader(): Promise<typeof import('../config/index.js')> {
  await import('../kinds/index.js');
  return import('../config/index.js');
}

export async function loadOrRefuse(opts: CommonOptions, secrets?: string): Promise<readonly DesiredResource[]> {
  const { loadConfig } = await configLoader();
  const result = await loadConfig({ root: path.resolve(opts.config), env: process.env, ignore: ownPaths(opts, secrets) });
  if (result.ok) return result.resources;
  for (const e of result.errors) process.stderr.write(formatError(e) + '\n');
  const files = new Set(result.errors.map((e) => e.file)).size;
  throw new ConfigRefused(`${result.errors.length} error${result.errors.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}: nothing was planned or applied.`);
}
