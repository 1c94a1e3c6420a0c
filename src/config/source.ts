// Where desired-state files come from: a folder on disk (its revision the commit of the checkout
// holding it, if any, each load reading only what changed), or a git remote kept checked out (./git/source.ts).

import path from 'node:path';
import { checkString } from '../util/options.js';
import { createConfigCache, loadConfig, type LoadCounts, type LoadOptions, type LoadResult } from './index.js';
import { gitRevision, hasLocalChanges, type SourceRevision } from './revision.js';

/** What a load needs besides the files: everything but where they are. */
type SourceLoadOptions = Omit<LoadOptions, 'root' | 'cache'>;

export interface ConfigSource {
  /** The folder the files are read from, absolute. Outputs default to it; the watcher watches it. */
  readonly root: string;
  /** Reads and checks every document: the desired model, or every error at once; with the commit read when known. */
  load(options: SourceLoadOptions): Promise<LoadResult>;
  /**
   * The next load reads these absolute paths again, whatever their stamps say (a watcher's events);
   * with none, every file from scratch. Absent: every load reads every file.
   */
  invalidate?(paths?: Iterable<string>): void;
  /** What the last load read, when loads keep what they read. */
  readonly counts?: LoadCounts;
}

/** `loaded` stamped with the commit its files were read at. */
export function withRevision(loaded: LoadResult, revision: SourceRevision | undefined): LoadResult {
  return revision ? { ...loaded, revision } : loaded;
}

/**
 * The files of a folder on disk, as they are at each load: files unchanged since the last load are not read again.
 * `environment`: `--env NAME`, whose overlays each load merges (LoadOptions.environment).
 */
export function folderSource(root: string, environment?: string): ConfigSource {
  const absolute = path.resolve(checkString('--config', root));
  const cache = createConfigCache();
  return {
    root: absolute,
    // Read before the files: a pull during the load changes the root, and the watcher asks for another.
    load: async (options) => {
      const revision = gitRevision(absolute);
      // Asked of git while the files are read: the config is the commit only when nothing under the root changed since.
      const changed = revision ? hasLocalChanges(absolute) : undefined;
      const loaded = await loadConfig({ ...options, root: absolute, cache, ...(environment !== undefined && { environment }) });
      return withRevision(loaded, revision && ((await changed) ? { ...revision, localChanges: true } : revision));
    },
    invalidate: (paths) => cache.invalidate(paths),
    get counts() {
      return cache.counts;
    },
  };
}
