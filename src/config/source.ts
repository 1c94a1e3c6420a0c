// Where desired-state files come from: a folder today. A source only says where its files are and
// loads them; a git source (a checkout kept up to date) will be one more implementation.

import path from 'node:path';
import { checkString } from '../util/options.js';
import { loadConfig, type LoadOptions, type LoadResult } from './index.js';

/** What a load needs besides the files: everything but where they are. */
export type SourceLoadOptions = Omit<LoadOptions, 'root'>;

export interface ConfigSource {
  /** The folder the files are read from, absolute. Outputs default to it; the watcher watches it. */
  readonly root: string;
  /** Reads and checks every document: the desired model, or every error at once. */
  load(options: SourceLoadOptions): Promise<LoadResult>;
}

/** The files of a folder on disk, as they are at each load. */
export function folderSource(root: string): ConfigSource {
  const absolute = path.resolve(checkString('config', root));
  return { root: absolute, load: (options) => loadConfig({ ...options, root: absolute }) };
}
