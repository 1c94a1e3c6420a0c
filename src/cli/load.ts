// Loading a config root for a command: every error printed as `file:line:col  field  message`,
// and a clear refusal (exit 1) so nothing is planned or applied from an invalid config.

import { formatError, type ConfigError } from '../config/errors.js';
import type { LoadResult } from '../config/index.js';
import type { SourceRevision } from '../config/revision.js';
import type { Root } from '../engine/root.js';
import type { DesiredResource } from '../kinds/kind.js';
import { plural } from '../util/format.js';
import { localOptions, type CommonOptions } from './common.js';

class ConfigRefused extends Error {
  override name = 'ConfigRefused';
}

/** The composition root for reading, with every kind registered; imported on use to keep `--help` and `emulator` quick. */
export async function localRoot(opts: CommonOptions): Promise<Root> {
  await import('../kinds/index.js');
  const { composeRoot } = await import('../engine/root.js');
  return composeRoot(localOptions(opts));
}

/** Loads the config root of `opts`, keeping edgesync's own files out. `how`: as Root.load takes it. */
export async function loadRoot(opts: CommonOptions, how?: Parameters<Root['load']>[0]): Promise<LoadResult> {
  return (await localRoot(opts)).load(how);
}

/** "3 errors in 2 files". */
export function errorCount(errors: readonly ConfigError[]): string {
  return `${plural(errors.length, 'error')} in ${plural(new Set(errors.map((e) => e.file)).size, 'file')}`;
}

/**
 * The desired model and its digest, or every error said (by `report`, else on stderr) and a ConfigRefused thrown.
 * `how`: as Root.load takes it.
 */
export async function loadOrRefuse(
  root: Pick<Root, 'load'>,
  report?: (error: ConfigError) => void,
  how?: Parameters<Root['load']>[0],
): Promise<{ readonly resources: readonly DesiredResource[]; readonly digest: string; readonly revision?: SourceRevision }> {
  const result = await root.load(how);
  if (result.ok) return result;
  for (const e of result.errors) (report ?? ((x: ConfigError) => process.stderr.write(formatError(x) + '\n')))(e);
  throw new ConfigRefused(`${errorCount(result.errors)}: nothing was planned or applied.`);
}
