// Watching the config root with chokidar: what is never config (dot-folders, editor temp files,
// edgesync's own state, secrets and AI outputs) is ignored; writes settle before they count.

import path from 'node:path';
import { watch } from 'chokidar';
import { isInside } from '../config/paths.js';

export interface ChangeSource {
  /** Resolves once the initial scan is done and changes are being reported. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchRequest {
  readonly root: string;
  /** Called with the absolute path of every add, change or removal that is not ignored. */
  readonly onChange: (file: string) => void;
  /** Extra absolute paths, resolved (and everything under them), to ignore; read on every event. */
  readonly ignored: () => ReadonlySet<string>;
  readonly onError?: (err: unknown) => void;
}

/** Injected so tests can drive the loop without a file system. */
export type WatchFactory = (request: WatchRequest) => ChangeSource;

/** Editor swap, backup and lock files, and vim's write test file `4913`. */
const TEMP_FILE = /(\.swp|\.swx|\.swo|~|\.tmp)$|^\.#|^4913$/;

/**
 * Whether `file` is never config: a dot-segment or a temp file below the root, or under an ignored path.
 * The ignored paths are looked up for the file and each folder above it, not each compared (chokidar
 * asks several times for every file it meets, and a config writes thousands of outputs).
 */
export function isIgnoredPath(root: string, file: string, ignored: ReadonlySet<string>): boolean {
  const abs = path.resolve(file);
  if (ignored.size > 0) {
    for (let at = abs, up = path.dirname(at); ; at = up, up = path.dirname(at)) {
      if (ignored.has(at)) return true;
      if (up === at) break;
    }
  }
  const rel = path.relative(root, abs);
  if (rel === '' || !isInside(root, abs)) return false;
  const parts = rel.split(path.sep);
  return parts.some((s) => s.startsWith('.') || s === 'node_modules') || TEMP_FILE.test(parts[parts.length - 1]);
}

export interface ChokidarTiming {
  /** A file counts as written once its size has not changed for this long. @default 100 */
  readonly stabilityMs?: number;
  /** @default 25 */
  readonly pollMs?: number;
}

export function chokidarWatcher(timing: ChokidarTiming = {}): WatchFactory {
  return ({ root, onChange, ignored, onError }) => {
    const abs = path.resolve(root);
    const watcher = watch(abs, {
      ignoreInitial: true,
      ignored: (file: string) => isIgnoredPath(abs, file, ignored()),
      awaitWriteFinish: { stabilityThreshold: timing.stabilityMs ?? 100, pollInterval: timing.pollMs ?? 25 },
    });
    const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    // A new folder is no change by itself (an AI run creating its output folder); files moved
    // in with it are reported as adds of their own.
    watcher.on('all', (event, file) => {
      if (event !== 'addDir') onChange(path.resolve(abs, file));
    });
    watcher.on('error', (err) => onError?.(err));
    return { ready, close: () => watcher.close() };
  };
}

/** For a root only edgesync moves (a git source's checkout): its follower says when, so nothing is watched. */
export const noWatch: WatchFactory = () => ({ ready: Promise.resolve(), close: async () => {} });
