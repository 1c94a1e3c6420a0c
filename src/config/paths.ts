// Containment checks shared by discovery and file references: a path is inside the root only
// when both its written form and its realpath are, so `..` and symlinks cannot leave it.

import fs from 'node:fs';
import path from 'node:path';

export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Names discovery never enters: dot-entries and node_modules. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** True when `candidate` is below `root` and discovery never enters it (it or a folder above it is skipped). */
export function isHiddenBelow(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && isInside(root, candidate) && rel.split(path.sep).some(isSkippedName);
}

/**
 * The realpath of `candidate` when it exists, else its nearest existing parent's realpath with
 * the rest appended: where a write to it would land today, symlinks followed.
 */
export function realpathNearest(candidate: string): string {
  const rest: string[] = [];
  let at = path.resolve(candidate);
  for (;;) {
    let real: string | undefined;
    try {
      real = fs.realpathSync(at);
    } catch {
      // Missing (or unreadable): try the folder above.
    }
    const parent = path.dirname(at);
    if (real !== undefined || parent === at) return path.join(real ?? at, ...rest);
    rest.unshift(path.basename(at));
    at = parent;
  }
}

/** True when `candidate` is one of `ignored` or below one. */
export function isIgnored(ignored: readonly string[], ...candidates: string[]): boolean {
  return ignored.some((i) => candidates.some((c) => c === i || c.startsWith(i.endsWith(path.sep) ? i : i + path.sep)));
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}
