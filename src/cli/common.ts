// Options shared by the commands that read a config root and a state file, and how their flags
// become the composition root's options. Defaults are docs/review-and-safety.md's; all checked first.

import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkBaseUrl } from '../api/options.js';
import { optionalToken } from '../api/token.js';
import { folderSource } from '../config/source.js';
import type { RootOptions } from '../engine/root.js';
import { parseDuration } from '../daemon/options.js';
import { isPgUrl } from '../state/pg/url.js';
import { stateBackend } from '../state/select.js';
import { DEFAULT_STATE_FILE } from '../state/index.js';
import { checkInteger, checkString, fail, parseRateLimit } from '../util/options.js';

/** Options the environment gave, by attribute: their variable (set by the program's hook in src/cli.ts). */
export interface GivenBy {
  readonly givenBy?: Readonly<Record<string, string>>;
}

/** How a message names option `attribute`: the environment variable that gave it, else `flag`. */
export function givenAs(opts: GivenBy, attribute: string, flag: string): string {
  return opts.givenBy?.[attribute] ?? flag;
}

export interface CommonOptions extends GivenBy {
  readonly config: string;
  /** `--env NAME`: the overlays of environments/NAME/ merged over the config. @default none */
  readonly env?: string;
  readonly state: string;
  readonly workspace?: string;
  readonly secrets?: string;
  readonly outputs?: string;
  readonly baseUrl?: string;
  readonly tokenFile?: string;
  readonly json?: boolean;
  /** `--expiry-warning`: a duration such as 14d (plan, apply, watch); absent on the other commands. */
  readonly expiryWarning?: string;
}

export interface ExecOptions extends CommonOptions {
  readonly concurrency: string;
  readonly rateLimit: string;
  /** Seconds per request. */
  readonly timeout: string;
}

export function withConfigAndState(cmd: Command): Command {
  return withEnvironment(
    cmd
      .option('--config <dir>', 'config root folder', '.')
      .addOption(new Option('--state <file|url>', 'state: a SQLite file, or a postgres://user@host/database URL').env('EDGESYNC_STATE').default(DEFAULT_STATE_FILE))
      .addOption(new Option('--workspace <name>', 'which state of a PostgreSQL database (one per config root)').env('EDGESYNC_WORKSPACE')),
  )
    .option('--secrets <dir>', 'folder for token secrets, outside the config root (default: secrets/ beside the state file)')
    .option('--outputs <dir>', 'folder AI run outputs are written below, at their path in the config root (default: the config root)');
}

/**
 * `--env NAME` (or EDGESYNC_ENV) on a command that has --state and --workspace: the environment's own state
 * where neither names one. Every command reaching a state resolves it here, so `state list --env staging`
 * reads the state `apply --env staging` wrote.
 */
export function withEnvironment(cmd: Command): Command {
  return (
    cmd
      .addOption(
        new Option(
          '--env <name>',
          'the environment environments/NAME/ of the config; its own state unless --state or --workspace names one (.edgesync/environments/NAME/state.db, or workspace NAME)',
        ).env('EDGESYNC_ENV'),
      )
      // Resolved by the command that runs: `state --env NAME list` hands its --env down to `list` (src/cli/state.ts).
      .hook('preAction', (self, running) => {
        if (self === running) environmentState(self);
      })
  );
}

/** An environment's name: one folder under environments/, and a part of its state's path. */
const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * `--env NAME` checked, and its own state chosen where no flag or variable chose one: a SQLite file of its
 * own (secrets beside it, so two environments' tokens never share a file), or the PostgreSQL workspace NAME.
 */
function environmentState(self: Command): void {
  const name: unknown = self.getOptionValue('env');
  if (name === undefined) return;
  const flag = givenAs(self.opts<GivenBy>(), 'env', '--env');
  if (typeof name !== 'string' || !ENVIRONMENT_NAME.test(name)) fail(flag, 'a folder name under environments/ (letters, digits, ".", "_" and "-", at most 64)', name);
  if (self.getOptionValueSource('state') === 'default') self.setOptionValueWithSource('state', environmentStateFile(name), 'default');
  else if (isPgUrl(self.getOptionValue('state')) && self.getOptionValue('workspace') === undefined) self.setOptionValue('workspace', name);
}

/** `.edgesync/environments/NAME/state.db`. */
function environmentStateFile(name: string): string {
  return path.posix.join(path.posix.dirname(DEFAULT_STATE_FILE), 'environments', name, 'state.db');
}

/** The change thresholds, in percent, and the number of deletes (see plan/guard.ts). */
export interface ThresholdOptions {
  readonly maxUpdateShare: string;
  readonly maxKvShare: string;
  readonly maxDeleteShare: string;
  readonly maxDeletes: string;
}

/** `--prune` and `--protect PATTERN` (repeatable). */
export interface PruneFlags {
  readonly prune?: boolean;
  readonly protect?: readonly string[];
}

export function withPrune(cmd: Command): Command {
  return cmd
    .option(
      '--prune',
      'delete what the config dropped: resources edgesync created or adopted that no document describes, and KV keys a document no longer has (never a singleton, nor what edgesync never wrote)',
    )
    .option(
      '--protect <pattern>',
      'never delete the resources this key or glob names (as metadata.protect: true); removing one of their documents with --prune is refused; repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

/** What the prune flags ask of the planner. */
export function pruneOf(flags: PruneFlags): { prune?: true; protect?: readonly string[] } {
  return { ...(flags.prune && { prune: true }), ...(flags.protect?.length && { protect: flags.protect }) };
}

/** `--expiry-warning DURATION`: how long before a token's expires_on the plan warns. */
export function withExpiryWarning(cmd: Command): Command {
  return cmd.option(
    '--expiry-warning <duration>',
    "warn (in the plan; watch: a token_expiring notification and the status page) when an ApiToken's spec.expires_on comes within this (e.g. 30d; at least 1m)",
    '14d',
  );
}

/** `--target PATTERN`, repeatable. */
export function withTargets(cmd: Command): Command {
  return cmd.option(
    '--target <pattern>',
    'limit the run to resources this key or glob names (e.g. GatewayList/*) and what they depend on; repeatable',
    (value: string, previous: string[] = []) => [...previous, value],
  );
}

export function withThresholds(cmd: Command): Command {
  return cmd
    .option('--max-update-share <percent>', 'refuse (hold) a plan updating more than this percent of the resources in state (once 10 or more)', '30')
    .option('--max-kv-share <percent>', "refuse (hold) a plan rewriting more than this percent of a KV namespace's stored keys (once 1,000 or more)", '30')
    .option(
      '--max-delete-share <percent>',
      "refuse (hold) a plan deleting more than this percent of the resources in state (once 10 or more), or of a KV namespace's stored keys (once 100 or more)",
      '10',
    )
    .option('--max-deletes <n>', 'refuse (hold) a plan deleting more than this many resources', '50');
}

/** "30" → 30; a percent from 0 to 100. */
function parseShare(name: string, text: string): number {
  const n = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= 100)) fail(name, 'a percent from 0 to 100', text);
  return n;
}

/** "50" → 50; a whole number from `min` to `max`. */
export function parseCount(name: string, text: string, min = 0, max = 1_000_000_000): number {
  return checkInteger(name, /^\s*\d+\s*$/.test(text) ? Number(text) : text, min, max);
}

export function thresholdsOf(opts: ThresholdOptions): { maxUpdateShare: number; maxKvShare: number; maxDeleteShare: number; maxDeletes: number } {
  return {
    maxUpdateShare: parseShare('--max-update-share', opts.maxUpdateShare),
    maxKvShare: parseShare('--max-kv-share', opts.maxKvShare),
    maxDeleteShare: parseShare('--max-delete-share', opts.maxDeleteShare ?? '10'),
    maxDeletes: parseCount('--max-deletes', opts.maxDeletes ?? '50'),
  };
}

export function withRemote(cmd: Command): Command {
  return cmd
    .addOption(new Option('--base-url <url>', 'interface base URL ending in /client/v4').env('EDGESYNC_BASE_URL'))
    .option('--token-file <file>', 'file holding the API token (else EDGESYNC_API_TOKEN)')
    .option('--concurrency <n>', 'calls in flight at once', '4')
    .option('--rate-limit <n/seconds>', 'request rate cap', '1200/300')
    .option('--timeout <seconds>', 'per request, from sending it to the last byte of the answer', '30');
}

/** The root's options for reading: source, state, secrets and outputs folders (defaults: the root's). */
export function localOptions(opts: CommonOptions): Pick<RootOptions, 'source' | 'state' | 'secretsDir' | 'outputsDir' | 'expiryWarningMs'> {
  return {
    ...(opts.expiryWarning !== undefined && { expiryWarningMs: parseDuration('--expiry-warning', opts.expiryWarning) }),
    source: folderSource(opts.config, opts.env),
    state: stateBackend(opts.state, opts.workspace),
    ...(opts.secrets !== undefined && { secretsDir: checkString('--secrets', opts.secrets) }),
    ...(opts.outputs !== undefined && { outputsDir: checkString('--outputs', opts.outputs) }),
  };
}

/** The root's options for sending too: every flag checked, the token read (flag file, else environment). */
export function remoteOptions(opts: ExecOptions, env: NodeJS.ProcessEnv): RootOptions {
  const concurrency = parseConcurrency(opts.concurrency);
  const rateLimit = parseRateLimit(opts.rateLimit);
  const timeoutMs = parseTimeout(opts.timeout);
  const baseUrlFrom = givenAs(opts, 'baseUrl', '--base-url');
  const baseUrl = requireBaseUrl(opts);
  const token = optionalToken({ env, tokenFile: opts.tokenFile });
  return { ...localOptions(opts), remote: { baseUrl, baseUrlFrom, ...(token !== undefined && { token }), timeoutMs }, concurrency, rateLimit, env };
}

/** "30" → 30,000 ms; fractions allowed, at most a day. */
function parseTimeout(text: string): number {
  const trimmed = text.trim();
  const seconds = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(seconds > 0 && seconds <= 86_400)) fail('--timeout', 'a number of seconds above 0, at most 86400', text);
  return Math.round(seconds * 1000);
}

function parseConcurrency(text: string): number {
  return checkInteger('--concurrency', Number(text), 1, 64);
}

/** The base URL, checked now (before anything opens), named in its message as the user gave it. */
function requireBaseUrl(opts: CommonOptions): string {
  if (!opts.baseUrl) {
    throw new Error('No interface base URL: pass --base-url URL or set EDGESYNC_BASE_URL (for the local emulator: `edgesync emulator` prints it).');
  }
  return checkBaseUrl(opts.baseUrl, givenAs(opts, 'baseUrl', '--base-url'));
}
