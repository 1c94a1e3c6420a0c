// Atomic writes of the files a run produces: token secrets (0600 in a 0700 folder, or a SecretSink
// elsewhere) and AI outputs (0600). A reader sees the old file or the new one, never half of one.

import { randomBytes } from 'node:crypto';
import { chmod, type FileHandle, mkdir, open, realpath, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isIgnored, isInside, realpathNearest } from '../config/paths.js';
import { YAML_NAME } from '../config/outputs.js';
import type { Json } from '../util/json.js';

/** Writes `data` to a temp file (created with `mode`) beside `file`, fsyncs it and renames it over `file`. */
async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      // The umask may have narrowed the mode; it must not have widened it, but make it exact.
      await handle.chmod(mode);
      await (typeof data === 'string' ? handle.writeFile(data, 'utf8') : handle.writeFile(data));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/** Makes the rename itself durable; some platforms cannot open a folder, which is not an error. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close();
  }
}

/** The file name of a token's secret: metadata.name, made unable to leave the folder or hide. */
export function secretFileName(name: string): string {
  return encodeURIComponent(name).replace(/^\./, '%2E');
}

/** Writes a token secret to `<dir>/<name>` (0600, folder 0700) and returns the path. */
async function writeSecret(dir: string, name: string, secret: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = path.join(dir, secretFileName(name));
  await writeFileAtomic(file, secret, 0o600);
  return file;
}

/**
 * Where an apply keeps the secret a token create or roll returned: the secrets folder (fileSecrets),
 * or a PostgreSQL state, encrypted (src/engine/secrets.ts chooses). Handed in, never built here.
 */
export interface SecretSink {
  /** As a failure names it: "the token secret could not be written to <shown>". */
  readonly shown: string;
  /** Keeps `secret` as token `name`'s (replacing an earlier one) and says where, as shown to the user; never the value. */
  write(name: string, secret: string): Promise<string>;
  /** Drops token `name`'s secret (its token was deleted) and says where it was; undefined when none was kept. */
  remove(name: string): Promise<string | undefined>;
}

/** One file per token in `dir` (writeSecret): the default. */
export function fileSecrets(dir: string): SecretSink {
  return { shown: dir, write: (name, secret) => writeSecret(dir, name, secret), remove: (name) => removeSecret(dir, name) };
}

/** Removes `<dir>/<name>`, the folder synced; undefined when there was no such file. */
async function removeSecret(dir: string, name: string): Promise<string | undefined> {
  const file = path.join(dir, secretFileName(name));
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  await syncDir(dir);
  return file;
}

/** An AI run's output file: read and written by its owner only. */
const OUTPUT_MODE = 0o600;

/**
 * Writes an AI run's result (pretty JSON, or the bytes it answered) at `rel` below the outputs folder `dir`, and returns
 * where. Checked again as it is written, since the loader checked: a symlink made since then
 * must not carry the write out of `dir`, over a YAML file or over one of `own` (state, secrets).
 */
export async function writeJsonOutput(dir: string, rel: string, content: Json | Uint8Array, own: readonly string[] = []): Promise<string> {
  const target = path.resolve(dir, rel);
  if (path.isAbsolute(rel) || !isInside(dir, target) || target === path.resolve(dir)) throw new Error(`"${rel}" is not a path inside the outputs folder`);
  await mkdir(dir, { recursive: true });
  const realDir = await realpath(dir);
  const protectedPaths = [...own, ...own.map(realpathNearest)];
  const check = (real: string): void => {
    if (!isInside(realDir, real)) throw new Error(`"${rel}" leads outside the outputs folder through a symlink: refused`);
    if (YAML_NAME.test(real)) throw new Error(`"${rel}" is a YAML file, which is config: refused`);
    if (isIgnored(protectedPaths, target, real)) throw new Error(`"${rel}" is one of edgesync's own files (the state or the secrets): refused`);
  };
  // Before creating folders (mkdir follows symlinks), then on the folder as it now really is.
  check(realpathNearest(target));
  await mkdir(path.dirname(target), { recursive: true });
  const real = path.join(await realpath(path.dirname(target)), path.basename(target));
  check(real);
  // Written where the folder really is; a symlink at the file's own name is replaced, not followed.
  // Owner-only: a model may answer anything, a secret included. The rename replaces any earlier file,
  // so one left readable by others (an older build wrote 0644) becomes 0600 with it.
  await writeFileAtomic(real, content instanceof Uint8Array ? content : JSON.stringify(content, null, 2) + '\n', OUTPUT_MODE);
  return target;
}
