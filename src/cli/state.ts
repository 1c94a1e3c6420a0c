// `edgesync state list|show|forget|resolve|unlock`: read and repair the state file by hand.
// Reads open read-only (no lock, safe during an apply); writes take the apply lock; `unlock`
// clears a stale lock file (docs/locks.md).

import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkAdoptedId } from '../kinds/identifiers.js';
import { withReadOnly } from '../state/backend.js';
import { shownPath, type StateAdmin } from '../state/index.js';
import { realStatePath } from '../state/file.js';
import { clearLock, type LockHolder, type LockVerdict } from '../state/lock.js';
import { isPgUrl } from '../state/pg/url.js';
import { KEPT_RUNS } from '../state/store.js';
import { checkInteger } from '../util/options.js';
import { stateBackend } from '../state/select.js';
import { renderList, renderShow, viewJson, type ResourceView } from '../state/render.js';
import { STATUSES } from '../state/rows.js';
import { action, shared, stateOptions } from './state-options.js';
import { registerTransfer } from './state-transfer.js';
import { registerSecret } from './state-secret.js';
import { oneStateKey, stateKeysShown } from './state-keys.js';
import { isGlob } from '../plan/key-patterns.js';

interface StateCliOptions {
  readonly state: string;
  readonly workspace?: string;
  /** `--env NAME`: the environment whose own state this is (and whose config `forget` checks). @default none */
  readonly env?: string;
  readonly json?: boolean;
}

interface ListOptions extends StateCliOptions {
  readonly status?: string;
}

interface ForgetOptions extends StateCliOptions {
  readonly kvKeys?: string;
  readonly kvKeysFile?: string;
  readonly config: string;
  readonly force?: boolean;
}

interface UnlockOptions extends StateCliOptions {
  readonly force?: boolean;
}

interface ResolveOptions extends StateCliOptions {
  readonly id?: string;
  readonly recreate?: boolean;
}

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/** As messages name the state: "state FILE" or "state URL (workspace W)", never a password. */
const shownState = (opts: StateCliOptions): string => stateBackend(opts.state, opts.workspace).shown;

/** Reads need no lock; a state that does not exist yet reads as empty. */
function withReader<T>(opts: StateCliOptions, use: (store: StateAdmin | undefined) => Promise<T>): Promise<T> {
  return withReadOnly(stateBackend(opts.state, opts.workspace), use);
}

async function withWriter<T>(opts: StateCliOptions, owner: string, use: (store: StateAdmin) => Promise<T>): Promise<T> {
  const backend = stateBackend(opts.state, opts.workspace);
  // Only a state that exists is repaired by hand: opened read-only first, which refuses a missing one.
  await (await backend.openReadOnly()).close();
  const store = await backend.open({ owner });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

function notInState(key: string, opts: StateCliOptions): Error {
  return new Error(`${key} is not in ${shownState(opts)}; \`edgesync state list\` shows what is`);
}

async function list(opts: ListOptions): Promise<void> {
  const status = opts.status;
  const views = (await withReader(opts, async (store) => (await store?.views()) ?? [])).filter((v) => !status || v.resource.status === status);
  if (opts.json) return printJson(views.map(viewJson));
  print(views.length ? renderList(views) : `No resources${status ? ` with status ${status}` : ''} in ${shownState(opts)}.`);
}

/** `pattern`: a whole key, `Kind/name`, or a glob showing every resource it names (then JSON is a list). */
async function show(pattern: string, opts: StateCliOptions): Promise<void> {
  const views: ResourceView[] = await withReader(opts, async (store) => {
    const keys = await stateKeysShown(pattern, store, shownState(opts));
    return Promise.all(keys.map(async (key) => (await store!.view(key))!));
  });
  if (opts.json) printJson(isGlob(pattern) ? views.map(viewJson) : viewJson(views[0]!));
  else print(views.map(renderShow).join('\n\n'));
}

/** The key of the one resource `pattern` names in the state (a whole key, or `Kind/name`); a missing state is said by the writer that opens it. */
const keyIn = (pattern: string, opts: StateCliOptions): Promise<string> => withReader(opts, async (store) => (store ? oneStateKey(pattern, store, shownState(opts)) : pattern));

/** KV keys from `--kv-keys a,b` or a file with one key per line. */
function kvKeysToForget(opts: ForgetOptions): string[] | undefined {
  if (opts.kvKeys !== undefined && opts.kvKeysFile !== undefined) throw new Error('Pass either --kv-keys or --kv-keys-file, not both');
  const keys =
    opts.kvKeys !== undefined ? opts.kvKeys.split(',') : opts.kvKeysFile !== undefined ? fs.readFileSync(path.resolve(opts.kvKeysFile), 'utf8').split(/\r?\n/) : undefined;
  const named = keys?.filter((k) => k !== '');
  if (named && !named.length) throw new Error('No KV keys named: --kv-keys and --kv-keys-file need at least one key');
  return named && [...new Set(named)];
}

/**
 * Forgetting a resource the config still describes makes the next apply create it again: for a POST
 * kind, a duplicate nothing can delete. Refused unless forced; a config that cannot be read is said.
 */
async function checkNotDescribed(key: string, opts: ForgetOptions): Promise<void> {
  const { loadRoot } = await import('./load.js');
  const loaded = await loadRoot({ config: opts.config, state: opts.state, ...(opts.env !== undefined && { env: opts.env }) });
  if (!loaded.ok) {
    process.stderr.write(
      `warning: the config at ${opts.config} could not be read (${loaded.errors.length} error(s)), so it is not known whether it still describes ${key}; ` +
        'if it does, the next apply creates it again\n',
    );
    return;
  }
  const described = loaded.resources.find((r) => r.key === key);
  if (!described) return;
  const where = `${path.relative(process.cwd(), described.source.file) || described.source.file}:${described.source.line}:${described.source.col}`;
  const message = `${key} is still described by the config (${where}): once forgotten, the next apply creates it again (for a gateway object or token: a duplicate). Remove the document first`;
  if (!opts.force) throw new Error(`${message}, or pass --force.`);
  process.stderr.write(`warning: ${message}.\n`);
}

async function forget(pattern: string, opts: ForgetOptions): Promise<void> {
  const kvKeys = kvKeysToForget(opts);
  const key = await keyIn(pattern, opts);
  if (!kvKeys) await checkNotDescribed(key, opts);
  await withWriter(opts, 'edgesync state forget', async (store) => {
    if (!(await store.get(key))) throw notInState(key, opts);
    if (kvKeys) {
      const missing = await store.missingKvKeys(key, kvKeys);
      if (missing.length) throw new Error(`${key} has no KV key ${missing.map((k) => JSON.stringify(k)).join(', ')} in state; nothing was dropped`);
      const dropped = await store.forgetKvKeys(key, kvKeys);
      if (opts.json) return printJson({ resource: key, kvKeys: dropped });
      return print(`Forgot ${dropped.length} KV key${dropped.length === 1 ? '' : 's'} of ${key}: ${dropped.join(', ')}`);
    }
    const gone = await store.forget(key);
    if (opts.json) return printJson({ ...viewJson({ resource: gone.resource, intent: gone.intent }), kvKeys: gone.kvKeys });
    const what = [
      `status ${gone.resource.status}`,
      gone.resource.remoteId && `remote id ${gone.resource.remoteId}`,
      gone.kvKeys && `${gone.kvKeys} KV keys`,
      gone.intent && `open ${gone.intent.operation} intent`,
    ];
    print(`Forgot ${key} (${what.filter(Boolean).join(', ')}). The remote object, if any, is untouched.`);
  });
}

/** Why a lock was removed, as a clause. */
function removedBecause(holder: LockHolder, verdict: LockVerdict): string {
  switch (verdict.state) {
    case 'stale':
      return `it was stale: ${verdict.why}`;
    case 'elsewhere':
      return verdict.where === 'host'
        ? `it could not be checked from here; make sure no edgesync still runs on ${holder.host}`
        : 'it could not be checked from here (another pid namespace); make sure no edgesync still runs in that container';
    case 'running':
      return `pid ${holder.pid} was running, but ${verdict.why}; removed as --force asks`;
    default:
      return 'its lock file named no holder';
  }
}

/**
 * Removes the lock file of a SQLite state whose holder is gone or cannot be checked from here; a
 * holder verified running on this host keeps it (stop it instead), and a running pid that cannot be
 * told from a later process keeps it unless --force. A PostgreSQL lock goes with its session.
 */
function unlock(opts: UnlockOptions): void {
  const backend = stateBackend(opts.state, opts.workspace);
  if (isPgUrl(opts.state)) {
    return print(`${backend.shown} is kept in PostgreSQL: its lock belongs to the holder's database session and goes with it. There is no lock file to clear.`);
  }
  const shown = shownPath(opts.state);
  const cleared = clearLock(`${realStatePath(opts.state)}.lock`, opts.force);
  if (cleared.done === 'absent') return print(`state ${shown} is not locked: there is no lock to clear.`);
  if (cleared.done === 'changed') throw new Error(`the lock of state ${shown} changed while it was being removed: another process took it. Run this again to see who holds it.`);
  const { holder, verdict } = cleared;
  const who = holder.pid > 0 ? `pid ${holder.pid} (${holder.owner}) on ${holder.host} since ${holder.since}` : 'no one it names';
  if (cleared.done === 'refused') {
    if (verdict.state === 'running') {
      throw new Error(`state ${shown} is locked by ${who}. Pid ${holder.pid} is running, but ${verdict.why}: if it is not edgesync, pass --force to remove the lock.`);
    }
    throw new Error(`state ${shown} is locked by ${who}, and that process is running: wait for it to finish or stop it. Its lock is not removed while it runs.`);
  }
  print(`Removed the lock of state ${shown}, held by ${who}: ${removedBecause(holder, verdict)}.`);
}

/** The daemon's runs the state keeps, newest first: when, what came of it, from which commit. */
async function runs(opts: StateCliOptions & { limit: string }): Promise<void> {
  const limit = checkInteger('--limit', Number(opts.limit), 1, KEPT_RUNS);
  const kept = await withReader(opts, async (store) => (await store?.runs(limit)) ?? []);
  if (opts.json) return printJson(kept);
  if (!kept.length) return print(`No runs kept in ${shownState(opts)}: \`edgesync watch\` keeps its last ${KEPT_RUNS}.`);
  for (const r of kept) {
    const counts = r.actions ? ` ${r.succeeded}/${r.actions} applied${r.failed ? `, ${r.failed} failed` : ''}${r.uncertain ? `, ${r.uncertain} uncertain` : ''}` : '';
    print(`${r.finishedAt}  ${r.result.padEnd(9)} ${r.reason.padEnd(6)} ${(r.revision ?? '-').slice(0, 12).padEnd(12)}${counts}${r.errors.length ? `  ${r.errors[0]}` : ''}`);
  }
}

async function resolve(pattern: string, opts: ResolveOptions): Promise<void> {
  if ((opts.id === undefined) === !opts.recreate) throw new Error('Pass exactly one of --id ID or --recreate');
  const key = await keyIn(pattern, opts);
  // The id goes into the path of the resource's later updates: it must have the form the provider gives it.
  const problem = opts.id === undefined ? undefined : checkAdoptedId(key.split(/[[/]/)[0]!, opts.id);
  if (problem !== undefined) throw new Error(`--id: ${problem}`);
  await withWriter(opts, 'edgesync state resolve', async (store) => {
    await store.resolve(key, opts.id !== undefined ? { id: opts.id } : { recreate: true });
    const after = await store.get(key);
    if (opts.json) return printJson({ resource: key, resolution: opts.id !== undefined ? { id: opts.id } : { recreate: true }, state: after ?? null });
    if (opts.id !== undefined) print(`Resolved ${key}: recorded as applied with id ${opts.id}.`);
    else if (after) print(`Resolved ${key}: its uncertain create is dropped; it stays ${after.status} with id ${after.remoteId ?? '(none)'}.`);
    else print(`Resolved ${key}: removed from state; the next apply creates it again.`);
  });
}

/** The options `state` itself takes, before its subcommand, for every subcommand. */
const PARENT_OPTIONS = ['state', 'workspace', 'env'] as const;

/**
 * `state --state F export` and `state export --state F` both read F: each level parses what is
 * written where it stands (positional options), and a value given before the subcommand is handed
 * down unless the subcommand was given its own.
 */
function handDown(state: Command): void {
  stateOptions(state).enablePositionalOptions();
  state.hook('preAction', (parent, sub) => {
    for (const key of PARENT_OPTIONS) {
      if (parent.getOptionValueSource(key) === 'cli' && sub.getOptionValueSource(key) !== 'cli') sub.setOptionValueWithSource(key, parent.getOptionValue(key), 'cli');
    }
  });
}

export function register(program: Command): void {
  const state = program.command('state').description('read and repair the state file: what was applied, remote ids, uncertain creates');
  handDown(state);
  shared(state.command('list'))
    .description('one line per resource: status, key, remote id, applied time, last error')
    .addOption(new Option('--status <status>', 'only resources with this status').choices(STATUSES))
    .action(action((opts: ListOptions) => list(opts)));
  const keyed = (name: string, description: string, what = 'resource key, e.g. GatewayList[account=…]/blocked-domains, or GatewayList/blocked-domains when that names one') =>
    shared(state.command(name)).description(description).argument('<key>', what);
  keyed('show', 'the whole record of a resource, with its open intent', "resource key, or Kind/name, or a glob such as 'GatewayList/*' (then JSON is a list)").action(
    action((key: string, opts: StateCliOptions) => show(key, opts)),
  );
  keyed('forget', 'drop a resource, or only some of its KV keys, from state (nothing is sent)')
    .option('--kv-keys <keys>', 'comma-separated KV keys to drop instead of the whole resource')
    .option('--kv-keys-file <file>', 'file with one KV key per line to drop')
    .option('--config <dir>', 'config root, checked so that a resource it still describes is not forgotten by mistake', '.')
    .option('--force', 'forget a resource even though the config still describes it')
    .action(action((key: string, opts: ForgetOptions) => forget(key, opts)));
  keyed('resolve', 'settle an uncertain create or delete: the id it has (it exists), or allow creating it again (it does not)')
    .option('--id <id>', 'the id the object has (found by hand): it exists')
    .option('--recreate', 'the object does not exist (a create that did not happen, a delete that did): let the next apply create it')
    .action(action((key: string, opts: ResolveOptions) => resolve(key, opts)));
  shared(state.command('runs'))
    .description(`the daemon's last runs, newest first: result, reason, revision (commit), actions, first error`)
    .option('--limit <n>', `how many (at most ${KEPT_RUNS})`, '20')
    .action(action((opts: StateCliOptions & { limit: string }) => runs(opts)));
  stateOptions(state.command('unlock'))
    .description('remove a stale lock: one whose holder is gone, or on a host that no longer runs edgesync')
    .option('--force', 'remove it even though its pid runs, when that process cannot be verified as the holder')
    .action(action((opts: UnlockOptions) => unlock(opts)));
  registerSecret(state);
  registerTransfer(state);
}
