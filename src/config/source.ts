// Where desired-state files come from: a folder on disk (its revision the commit of the checkout
// holding it, if any), or a git remote kept checked out (./git/source.ts).

import path from 'node:path';
import { checkString } from '../util/options.js';
import { loadConfig, type LoadOptions, type LoadResult } from './index.js';
import { gitRevision, type SourceRevision } from './revision.js';

/** What a load needs besides the files: everything but where they are. */
export type SourceLoadOptions = Omit<LoadOptions, 'root'>;

export interface ConfigSource {
  /** The folder the files are read from, absolute. Outputs default to it; the watcher watches it. */
  readonly root: string;
  /** Reads and checks every document: the desired model, or every error at once; with the commit read when known. */
  load(options: SourceLoadOptions): Promise<LoadResult>;
}

/** `loaded` stamped with the commit its files were read at. */
export function withRevision(loaded: LoadResult, revision: SourceRevision | undefined): LoadResult {
  return revision ? { ...loaded, revision } : loaded;
}

/** The files of a folder on disk, as they are at each load. */
export function folderSource(root: string): ConfigSource {
  const absolute = path.resolve(checkString('config', root));
  return {
    root: absolute,
    // Read before the files: a pull during the load changes the root, and the watcher asks for another.
    load: async (options) => {
      const revision = gitRevision(absolute);
      return withRevision(await loadConfig({ ...options, root: absolute }), revision);
    },
  };
}
