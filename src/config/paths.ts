// Containment checks shared by discovery and file references: a path is inside the root only
// when both its written form and its realpath are, so `..` and symlinks cannot leave it.

import path from 'node:path';

export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
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
