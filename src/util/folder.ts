// Whether a path is a folder, as a yes or no: a path that cannot be looked at (absent, under a file,
// not permitted) is not one. For the loader's environments and the state's secrets folder alike.

import fs from 'node:fs';

/** `dir` is a folder now (symlinks followed); false when it is not, or cannot be looked at. */
export function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
