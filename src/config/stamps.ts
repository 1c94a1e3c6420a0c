// What tells a file unchanged since a load without reading it: its stamp (size, times, inode), and
// the paths a document's build looked at besides its YAML file (references), each with its stamp.

import fs from 'node:fs';

export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly dev: number;
}

/**
 * File times tick coarsely (a few ms on Linux, 2 s on FAT): a write in the same tick as the stamp
 * taken may leave it as it was. A stamp whose mtime is this close to the load that took it is not
 * trusted: the file is read again (and hashed) at the next load, as git does with racily clean
 * files. An older mtime cannot survive a write, which sets it to the time of the write.
 */
const RACY_MS = 2000;

export function stampOf(stat: fs.Stats): FileStamp {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, dev: stat.dev };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/** Whether `stamp`, taken by a load that began at `loadedAt`, may miss a write made right after it. */
export function isRacy(stamp: FileStamp, loadedAt: number): boolean {
  return stamp.mtimeMs >= loadedAt - RACY_MS;
}

/** A path a build looked at: where it led (undefined: nothing there), and the file or folder found, when it was looked at. */
export interface InputStamp {
  readonly path: string;
  readonly real?: string;
  readonly stamp?: FileStamp;
}

/** What a document's build read besides its YAML file; handed to the BuildContext (./references.ts). */
export interface BuildInputs {
  /** A reference resolved (or not found), with the stamp of what it led to when that was looked at. */
  record(input: InputStamp): void;
  /** The build asked for something no stamp covers (the time, an output path): the document is built again at every load. */
  unstamped(): void;
}

/** The inputs one file's documents recorded. */
export class RecordedInputs implements BuildInputs {
  readonly inputs: InputStamp[] = [];
  volatile = false;
  record(input: InputStamp): void {
    this.inputs.push(input);
  }
  unstamped(): void {
    this.volatile = true;
  }
}

const realpathOrNone = (file: string): string | undefined => {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
};

/** Whether every input still leads where it did, to the same stamp, trusted (see RACY_MS), and was not named changed. */
export function inputsUnchanged(inputs: readonly InputStamp[], loadedAt: number, changed: ReadonlySet<string>): boolean {
  for (const input of inputs) {
    if (changed.has(input.path) || (input.real !== undefined && changed.has(input.real))) return false;
    const real = realpathOrNone(input.path);
    if (real !== input.real) return false;
    if (input.stamp === undefined || real === undefined) continue;
    let now: FileStamp;
    try {
      now = stampOf(fs.statSync(real));
    } catch {
      return false;
    }
    if (!sameStamp(now, input.stamp) || isRacy(input.stamp, loadedAt)) return false;
  }
  return true;
}
