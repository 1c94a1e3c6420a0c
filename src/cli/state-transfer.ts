// `edgesync state export|import|migrate`: backups and moves of the state between files, databases
// and workspaces. The logic is in src/state/transfer/; this file turns flags into calls and prints.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { checkPgUrl, isPgUrl } from '../state/pg/url.js';
import { exportState } from '../state/transfer/export.js';
import { importState } from '../state/transfer/import.js';
import { migrateState } from '../state/transfer/migrate.js';
import { describeCounts, type Counts } from '../state/transfer/records.js';
import { backendOf, openSource, type StateSpec } from '../state/transfer/target.js';
import { formatCount, plural } from '../util/format.js';
import { action, shared, stateOptions } from './state-options.js';

interface ExportOptions extends StateSpec {
  readonly out?: string;
}

interface ImportOptions extends StateSpec {
  readonly json?: boolean;
}

interface MigrateOptions extends ImportOptions {
  readonly to: string;
  readonly toWorkspace?: string;
}

/** Writes all of `text` to `fd`, waiting when a non-blocking pipe is full, so memory holds one record at most. */
function writeAll(fd: number, text: string): void {
  let buffer = Buffer.from(text);
  while (buffer.length) {
    try {
      buffer = buffer.subarray(fs.writeSync(fd, buffer));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/** What was left out on the way, as notes after the summary: an older build's secret hashes, the token secrets a database keeps. */
function notes(t: { readonly redacted: number; readonly keptSecrets: number }, shown: string): string {
  const out: string[] = [];
  if (t.redacted) {
    out.push(
      `note: ${plural(t.redacted, 'request')} held hashes of secret texts (recorded by an older edgesync): written as "[redacted]", without the hash; the next apply writes ${t.redacted === 1 ? 'it' : 'them'} again`,
    );
  }
  if (t.keptSecrets) {
    out.push(
      `note: ${shown} also keeps ${plural(t.keptSecrets, 'token secret')} (EDGESYNC_SECRETS_KEY), left out as every secret is: ` +
        'read each with `edgesync state secret NAME` there, or roll the tokens (raise spec.rotate) once the state has moved',
    );
  }
  return out.map((line) => `\n${line}`).join('');
}

function openPartial(partial: string, shown: string): number {
  try {
    fs.rmSync(partial, { force: true });
    return fs.openSync(partial, 'wx', 0o600);
  } catch (err) {
    throw new Error(`cannot write ${shown} (${(err as NodeJS.ErrnoException).code ?? String(err)}): check that its folder exists and is writable`);
  }
}

/** To stdout, or to --out through a file beside it renamed at the end: a failed export never leaves a file that looks whole. */
async function exportCommand(opts: ExportOptions): Promise<void> {
  const backend = backendOf(opts);
  const store = await openSource(backend, 'export');
  const out = opts.out === undefined ? undefined : path.resolve(opts.out);
  const partial = out && `${out}.partial`;
  let fd = 1;
  try {
    // Owner-only, as the state itself: it names every remote id. A .partial left by a killed export is replaced.
    if (partial) fd = openPartial(partial, opts.out!);
    const tally = await exportState(store, (text) => writeAll(fd, text));
    if (partial && out) {
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = -1;
      fs.renameSync(partial, out);
    }
    process.stderr.write(`Exported ${describe(tally)} of ${backend.shown}${opts.out ? ` to ${opts.out}` : ''}.${notes(tally, backend.shown)}\n`);
  } catch (err) {
    if (partial) {
      if (fd > 1) fs.closeSync(fd);
      fs.rmSync(partial, { force: true });
    }
    throw err;
  } finally {
    await store.close();
  }
}

/** "14 resources, 0 intents and 1,234 KV keys (in 2 KV resources)". */
function describe(c: Counts): string {
  const kv = c.kvKeysOf.size ? ` (in ${plural(c.kvKeysOf.size, 'KV resource')})` : '';
  return `${plural(c.resources, 'resource')}, ${plural(c.intents, 'intent')} and ${plural(c.kvKeys, 'KV key')}${kv}`;
}

const countsJson = (c: Counts) => ({ resources: c.resources, intents: c.intents, kvKeys: c.kvKeys, kvKeysOf: Object.fromEntries(c.kvKeysOf) });

async function importCommand(file: string, opts: ImportOptions): Promise<void> {
  const { into, counts } = await importState(path.resolve(file), opts, file);
  if (opts.json) process.stdout.write(`${JSON.stringify({ file, into, ...countsJson(counts) }, null, 2)}\n`);
  else process.stdout.write(`Imported ${describe(counts)} from ${file} into ${into}.\n`);
}

async function migrateCommand(opts: MigrateOptions): Promise<void> {
  if (isPgUrl(opts.to)) checkPgUrl(opts.to, 'to');
  if (!isPgUrl(opts.to) && opts.toWorkspace !== undefined) throw new Error('--to-workspace is for a postgres:// target; a SQLite file holds one state');
  // A PostgreSQL target keeps the source's workspace name unless told otherwise.
  const workspace = isPgUrl(opts.to) ? (opts.toWorkspace ?? opts.workspace) : undefined;
  const to: StateSpec = { state: opts.to, ...(workspace !== undefined && { workspace }) };
  const done = await migrateState(opts, to);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ from: done.from, to: done.to, ...countsJson(done.counts), redacted: done.redacted, keptSecrets: done.keptSecrets }, null, 2)}\n`);
    return;
  }
  const c = done.counts;
  const totals: [string, string][] = [
    ['resources', formatCount(c.resources)],
    ['intents', formatCount(c.intents)],
    ['KV keys', formatCount(c.kvKeys)],
  ];
  const numbers = Math.max(...totals.map(([, n]) => n.length));
  const table = [
    ...totals.map(([label, n]) => `  ${label.padEnd(9)}  ${n.padStart(numbers)}`),
    ...[...c.kvKeysOf].map(([resource, n]) => `    ${resource}  ${formatCount(n)}`),
  ].join('\n');
  process.stdout.write(
    `Copied ${describeCounts(c)} from ${done.from} to ${done.to}.\nRead back from the target, each as in the source:\n${table}\n` +
      `The source is unchanged: point --state${to.workspace !== undefined ? ' and --workspace' : ''} at the target before the next apply.${notes(done, done.from)}\n`,
  );
}

export function registerTransfer(state: Command): void {
  stateOptions(state.command('export'))
    .description('write the whole state as versioned JSON (to stdout, or --out FILE): a backup, or a move to another backend')
    .option('--out <file>', 'write to this file (made whole or not at all) instead of stdout')
    .action(action((opts: ExportOptions) => exportCommand(opts)));
  shared(state.command('import'))
    .description('load an export into an empty state (a missing file or workspace, or one holding nothing)')
    .argument('<file>', 'a file `edgesync state export` wrote')
    .action(action((file: string, opts: ImportOptions) => importCommand(file, opts)));
  shared(state.command('migrate'))
    .description('copy the state into another, empty one (SQLite to PostgreSQL, back, or another workspace), then compare counts')
    .requiredOption('--to <file|url>', 'the target: a SQLite file, or a postgres:// URL')
    .option('--to-workspace <name>', 'the target workspace of a PostgreSQL database (default: --workspace, else default)')
    .action(action((opts: MigrateOptions) => migrateCommand(opts)));
}
