// The loader's memory between loads: per YAML file its stamp, content hash, errors and what its
// documents became, so a load reads again only files that changed and builds only what they hold.

import { sha256 } from '../util/json.js';
import type { ConfigError } from './errors.js';
import { displayFile } from './errors.js';
import type { DocumentOutcome } from './document.js';
import { buildFile, type FileBuild, type FileSettings } from './file-build.js';
import { readTextBounded } from './files.js';
import { TurnClock } from '../util/turn.js';
import { inputsUnchanged, isRacy, sameStamp, type FileStamp } from './stamps.js';

export type { FileSettings } from './file-build.js';

/** A load's work on one file, reused by the next load while nothing it read has changed. */
interface FileEntry extends FileBuild {
  readonly stamp: FileStamp;
  /** When the load that took the stamp began (see RACY_MS). */
  readonly loadedAt: number;
  /** sha256 of the text: a file written again with the same bytes is not parsed again. */
  readonly hash: string;
}

/** What the last load did, for a log line and for tests. */
export interface LoadCounts {
  /** YAML files of the config. */
  readonly files: number;
  /** Of those, files read (a stamp changed, a change was reported, or nothing was kept). */
  readonly read: number;
  /** Of those, files whose documents were parsed and built again. */
  readonly built: number;
  /** Of those, files a helper thread built (see LoadOptions.helperThread). */
  readonly helped: number;
}

/** Kept between loads of one config root (folderSource holds one); a load without one reads everything. */
export interface ConfigCache {
  /**
   * The next load reads these absolute paths again (YAML files or files they reference), whatever
   * their stamps say; with none, it reads every file from scratch, keeping nothing.
   */
  invalidate(paths?: Iterable<string>): void;
  /** What the last load read. */
  readonly counts: LoadCounts;
}

class Cache implements ConfigCache {
  files = new Map<string, FileEntry>();
  changed = new Set<string>();
  /** A full read was asked for; or a load began and did not end (what it took of `changed` is lost). */
  fullAsked = false;
  unfinished = false;
  settings: FileSettings | undefined;
  /** The variables `${NAME}` was read from, as they were. */
  env: [string, string | undefined][] = [];
  key = '';
  counts: LoadCounts = { files: 0, read: 0, built: 0, helped: 0 };

  invalidate(paths?: Iterable<string>): void {
    if (paths === undefined) this.fullAsked = true;
    else for (const p of paths) this.changed.add(p);
  }
}

export function createConfigCache(): ConfigCache {
  return new Cache();
}

function sameEnv(a: readonly [string, string | undefined][], b: readonly [string, string | undefined][]): boolean {
  if (a.length !== b.length) return false;
  const before = new Map(a);
  return b.every(([k, v]) => before.has(k) && before.get(k) === v);
}

/** One load's pass over the files; `end` keeps the entries of the files it saw. */
export interface LoadPass {
  /** Nothing was kept from a load before: every file is read and built. */
  readonly cold: boolean;
  /**
   * Starts reading a file `file` will be asked for soon, unless what was kept of it is likely still good: its
   * reads then wait on the disk while earlier files are parsed. `file` reads anew whatever it was not given.
   */
  prefetch(file: string, stamp: FileStamp | undefined): void;
  file(file: string, stamp: FileStamp | undefined): Promise<FileDone>;
  /** Keeps what another thread built of `file` from text whose sha256 is `hash`; only in a cold pass, where nothing kept could serve. */
  adopt(file: string, stamp: FileStamp | undefined, hash: string, built: FileBuild): FileDone;
  end(): void;
}

export interface FileDone {
  readonly errors: readonly ConfigError[];
  readonly outcomes: readonly DocumentOutcome[];
}

/** A file found between discovery's stamp and now has none: kept with one that never matches. */
const NO_STAMP: FileStamp = { size: -1, mtimeMs: 0, ctimeMs: 0, ino: 0, dev: 0 };

type Read = { readonly text: string } | { readonly problem: { readonly line: number; readonly col: number; readonly message: string } };

/**
 * Starts a load over `cache` (a fresh one when none): what was kept is dropped when the settings
 * differ (another env, root, bounds or schemas) or a full read was asked for.
 */
export function beginLoad(cache: ConfigCache | undefined, settings: FileSettings, key: string): LoadPass {
  const c = (cache as Cache | undefined) ?? new Cache();
  const loadedAt = Date.now();
  const env = Object.entries(settings.env);
  const same = !c.fullAsked && !c.unfinished && c.key === key && c.settings?.document.validator === settings.document.validator && sameEnv(c.env, env);
  const kept = same ? c.files : new Map<string, FileEntry>();
  // Changes reported from here on are the next load's.
  const changed = c.changed;
  c.changed = new Set();
  c.fullAsked = false;
  c.unfinished = true;
  c.key = key;
  c.settings = settings;
  c.env = env;
  const next = new Map<string, FileEntry>();
  let read = 0;
  let built = 0;
  let helped = 0;
  // One clock for the pass: a turn comes by time across files as within one.
  const turns = new TurnClock();

  const build = async (file: string, text: string, stamp: FileStamp, hash: string): Promise<FileEntry> => {
    built++;
    return { stamp, loadedAt, hash, ...(await buildFile(file, text, settings, undefined, turns)) };
  };
  const reusable = (entry: FileEntry): boolean => !entry.volatile && inputsUnchanged(entry.inputs, entry.loadedAt, changed);
  const trusted = (file: string, stamp: FileStamp | undefined, was: FileEntry | undefined): was is FileEntry =>
    was !== undefined && stamp !== undefined && !changed.has(file) && sameStamp(was.stamp, stamp) && !isRacy(was.stamp, was.loadedAt);
  const readText = (file: string): Promise<Read> =>
    readTextBounded(file, settings.maxFileBytes).catch((err: NodeJS.ErrnoException) => ({
      problem: { line: 1, col: 1, message: `cannot be read (${err.code ?? err.message})` },
    }));
  // Reads begun ahead (they never reject), each taken once by `file`.
  const ahead = new Map<string, Promise<Read>>();

  return {
    cold: kept.size === 0,
    prefetch(file, stamp) {
      if (!ahead.has(file) && !trusted(file, stamp, kept.get(file))) ahead.set(file, readText(file));
    },
    async file(file, stamp) {
      const was = kept.get(file);
      const early = ahead.get(file);
      ahead.delete(file);
      if (trusted(file, stamp, was) && reusable(was)) {
        next.set(file, was);
        return was;
      }
      read++;
      const got = await (early ?? readText(file));
      // Unreadable now: said at this load, and read again at the next.
      if ('problem' in got) return { errors: [{ file: displayFile(file), ...got.problem, path: '' }], outcomes: [] };
      const hash = sha256(got.text);
      const taken = stamp ?? NO_STAMP;
      const entry = was !== undefined && was.hash === hash && reusable(was) ? { ...was, stamp: taken, loadedAt } : await build(file, got.text, taken, hash);
      next.set(file, entry);
      return entry;
    },
    adopt(file, stamp, hash, made) {
      if (kept.size) throw new Error('adopt: only a cold pass takes what another thread built');
      read++;
      built++;
      helped++;
      const entry: FileEntry = { stamp: stamp ?? NO_STAMP, loadedAt, hash, ...made };
      next.set(file, entry);
      return entry;
    },
    end() {
      c.files = next;
      c.unfinished = false;
      c.counts = { files: next.size, read, built, helped };
    },
  };
}
