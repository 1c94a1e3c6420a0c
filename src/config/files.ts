// Finding the YAML files of a config root and reading each one within its bounds: size checked
// before reading, binary content refused with one error, symlinks leaving the root refused.

import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isUtf8 } from 'node:buffer';
import { displayFile, type ConfigError } from './errors.js';
import { formatBytes, isIgnored, isInside, isSkippedName } from './paths.js';
import type { Position } from './yaml.js';
import { compareStrings } from '../util/compare.js';
import { stampOf, type FileStamp } from './stamps.js';

interface FileProblem extends Position {
  readonly file: string;
  readonly message: string;
}

export interface Discovery {
  /** The root's realpath ('' when the root cannot be read). */
  readonly realRoot: string;
  /** Absolute paths as found under the root, sorted by their path relative to it. */
  readonly files: readonly string[];
  /** Each file's stamp, taken before it is read: a later write shows as another stamp (./stamps.ts). */
  readonly stamps: ReadonlyMap<string, FileStamp>;
  readonly problems: readonly FileProblem[];
}

/** A discovery's problems as the config's errors, each at its file (shown relative to the working folder). */
export function discoveryErrors(found: Discovery): ConfigError[] {
  return found.problems.map((p) => ({ file: displayFile(p.file), line: p.line, col: p.col, path: '', message: p.message }));
}

/** `.yaml` and `.yml` in any case: a `*.YAML` file is config too, never skipped in silence. */
const YAML_FILE = /\.ya?ml$/i;
const TOP: Position = { line: 1, col: 1 };

/** The file-system calls discovery makes; a test hands in failing ones (root can read any folder). */
export interface DiscoveryIo {
  readonly readdir: (dir: string) => Promise<Dirent[]>;
}

const DEFAULT_IO: DiscoveryIo = { readdir: (dir) => fs.readdir(dir, { withFileTypes: true }) };

/**
 * Every `*.yaml`/`*.yml` below `root`: dot-entries and node_modules skipped, each real file once. A folder
 * that cannot be read is a problem at that folder; the rest is still found.
 */
export async function discover(root: string, ignore: readonly string[], io: DiscoveryIo = DEFAULT_IO): Promise<Discovery> {
  const problems: FileProblem[] = [];
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
    if (!(await fs.stat(realRoot)).isDirectory()) throw new Error('not a folder');
  } catch {
    return { realRoot: '', files: [], stamps: new Map(), problems: [{ file: root, ...TOP, message: 'config root is not a readable folder' }] };
  }
  const found = new Map<string, string>(); // realpath → path as found
  const stamps = new Map<string, FileStamp>();
  const visited = new Set<string>([realRoot]);
  // `realDir`: where `dir` really is, so an entry that is no symlink needs no realpath of its own.
  const walk = async (dir: string, realDir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await io.readdir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      problems.push({ file: dir, ...TOP, message: `folder cannot be read (${code}): its files are not checked; fix its permissions or remove it` });
      return;
    }
    // Every entry's realpath and stat asked at once (each is a round trip to a thread), then taken in order.
    const looks = await Promise.all(entries.map((entry) => look(dir, realDir, entry)));
    for (const seen of looks) {
      if (seen === undefined) continue;
      if ('problem' in seen) {
        problems.push(seen.problem);
        continue;
      }
      const { full, real, stat } = seen;
      if (!isInside(realRoot, real)) {
        problems.push({ file: full, ...TOP, message: `symlink leads outside the config root (to ${real}): refused` });
      } else if (stat.isDirectory()) {
        if (!visited.has(real)) {
          visited.add(real);
          await walk(full, real);
        }
      } else if (!found.has(real)) {
        found.set(real, full);
        stamps.set(full, stampOf(stat));
      }
    }
  };
  /** A folder or YAML file to take, a problem, or undefined for an entry discovery passes over. */
  const look = async (dir: string, realDir: string, entry: Dirent): Promise<Look | undefined> => {
    if (isSkippedName(entry.name)) return undefined;
    // A plain file that is not YAML needs no realpath or stat (KV folders can hold thousands).
    if (entry.isFile() && !YAML_FILE.test(entry.name)) return undefined;
    const full = path.join(dir, entry.name);
    const real = entry.isSymbolicLink() ? await fs.realpath(full).catch(() => undefined) : path.join(realDir, entry.name);
    if (real === undefined) return YAML_FILE.test(entry.name) ? { problem: { file: full, ...TOP, message: 'symlink to a file that does not exist' } } : undefined;
    if (isIgnored(ignore, full, real)) return undefined;
    let stat: Stats;
    try {
      stat = await fs.stat(real);
    } catch (err) {
      return { problem: { file: full, ...TOP, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` } };
    }
    if (!stat.isDirectory() && !(stat.isFile() && YAML_FILE.test(entry.name))) return undefined;
    return { full, real, stat };
  };
  await walk(root, realRoot);
  // Each file's relative path once, not twice per comparison.
  const files = [...found.values()]
    .map((file) => ({ file, rel: path.relative(root, file) }))
    .sort((a, b) => compareStrings(a.rel, b.rel))
    .map((f) => f.file);
  return { realRoot, files, stamps, problems };
}

type Look = { readonly full: string; readonly real: string; readonly stat: Stats } | { readonly problem: FileProblem };

export type ReadResult = { readonly text: string } | { readonly problem: Omit<FileProblem, 'file'> };

/** A file's text, refused (without reading it whole) when over `maxBytes`, or when it is not UTF-8 text. */
export async function readTextBounded(file: string, maxBytes: number): Promise<ReadResult> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const tooBig = sizeProblem(size, maxBytes, 'maxFileBytes');
    if (tooBig) return { problem: { ...TOP, message: tooBig } };
    // Read one byte past the bound so a file that grew since stat is caught too.
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { problem: { ...TOP, message: sizeProblem(length, maxBytes, 'maxFileBytes')! } };
    const bytes = buffer.subarray(0, length);
    const binary = textProblem(bytes);
    return binary ? { problem: binary } : { text: bytes.toString('utf8') };
  } finally {
    await handle.close();
  }
}

export function sizeProblem(size: number, maxBytes: number, option: string): string | undefined {
  if (size <= maxBytes) return undefined;
  return `file is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} bound (${option}): refused without reading it`;
}

/** One error for binary content, at the first NUL byte or invalid UTF-8 sequence. */
function textProblem(bytes: Buffer): Omit<FileProblem, 'file'> | undefined {
  const nul = bytes.indexOf(0);
  if (nul < 0 && isUtf8(bytes)) return undefined;
  const text = (nul < 0 ? bytes : bytes.subarray(0, nul)).toString('utf8');
  const offset = nul < 0 ? text.indexOf('\uFFFD') : text.length;
  const before = text.slice(0, Math.max(offset, 0));
  const line = before.split('\n').length;
  const col = before.length - before.lastIndexOf('\n');
  const what = nul < 0 ? 'invalid UTF-8' : 'a NUL byte';
  return { line, col, message: `binary content (${what}): not a YAML text file` };
}
