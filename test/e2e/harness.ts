// End-to-end harness: temp copies of a fixture root, the built command line as a child process,
// in-process emulators, and cleanup after each test. `npm run build` must have run first.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { parseAllDocuments, type Document } from 'yaml';
import { startEmulator, type EmulatorOptions, type RecordedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { openStateStore } from '../../src/state/index.js';

export const TOKEN = 'e2e-token-0123456789';
export const ACCOUNT = '0123456789abcdef0123456789abcdef';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = path.join(repo, 'bin/edgesync');
const FIXTURES = path.join(repo, 'test/fixtures/e2e');

if (!fs.existsSync(path.join(repo, 'dist/cli.js'))) {
  throw new Error('The end-to-end tests run the built command line: run `npm run build` first.');
}
const builtAt = fs.statSync(path.join(repo, 'dist/cli.js')).mtimeMs;
const newer = (fs.readdirSync(path.join(repo, 'src'), { recursive: true }) as string[]).filter(
  (f) => f.endsWith('.ts') && fs.statSync(path.join(repo, 'src', f)).mtimeMs > builtAt,
);
if (newer.length) console.warn(`dist/ is older than ${newer.length} file(s) of src/ (e.g. src/${newer[0]}): the command line under test may be stale; run \`npm run build\``);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

export async function emulator(options: Partial<EmulatorOptions> = {}): Promise<RunningEmulator> {
  const emu = await startEmulator({ tokens: [TOKEN], seed: 1, ...options });
  cleanups.push(() => emu.close());
  return emu;
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
}

/** Starts `edgesync ARGS` as a user would, with the token in the environment and no terminal. */
export function startCli(args: readonly string[], options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}): CliProcess {
  // Only the flags name the emulator: a base URL in the tester's environment must not leak in.
  const { EDGESYNC_BASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...inherited, EDGESYNC_API_TOKEN: TOKEN, NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return done;
  });
  return { child, done };
}

export const cli = (args: readonly string[], options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}): Promise<CliResult> => startCli(args, options).done;

/** A temp folder holding a copy of a fixture root (`root/`), the state file and the secrets folder. */
export interface Workspace {
  readonly dir: string;
  readonly root: string;
  readonly state: string;
  readonly secrets: string;
  /** `--config ROOT --state STATE`, for plan and validate. */
  readonly local: readonly string[];
  /** Also `--secrets` and `--base-url`, for apply. */
  remote(emu: RunningEmulator): string[];
  file(rel: string): string;
}

export function workspace(fixture = 'all-kinds'): Workspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `edgesync-e2e-${fixture}-`));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  fs.cpSync(path.join(FIXTURES, fixture), root, { recursive: true });
  const state = path.join(dir, 'state', 'state.db');
  const secrets = path.join(dir, 'secrets');
  const local = ['--config', root, '--state', state];
  return {
    dir,
    root,
    state,
    secrets,
    local,
    remote: (emu) => [...local, '--secrets', secrets, '--base-url', emu.url],
    file: (rel) => path.join(root, rel),
  };
}

/** A change made as a person in the dashboard would, through the emulator's inspection route. */
export async function byHand(url: string, method: 'PATCH' | 'DELETE', collection: string, id: string, patch?: unknown): Promise<void> {
  const res = await fetch(`${new URL(url).origin}/__emulator/objects/${collection}/${id}`, {
    method,
    ...(patch !== undefined && { headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) }),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

export const apply = (ws: Workspace, emu: RunningEmulator, ...extra: string[]) => cli(['apply', ...ws.remote(emu), ...extra]);

/** The fixture applied once by the command line, and the emulator's request log cleared after it. */
export async function fixtureApplied(): Promise<{ emu: RunningEmulator; ws: Workspace }> {
  const emu = await emulator();
  const ws = workspace();
  expect((await apply(ws, emu)).code).toBe(0);
  emu.clearRequests();
  return { emu, ws };
}

/** Edits the document named `name` in a YAML file of the workspace, keeping the others as they are. */
export function editDoc(ws: Workspace, rel: string, name: string, edit: (doc: Document) => void): void {
  const file = ws.file(rel);
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(docs)) throw new Error(`${rel} is empty`);
  const doc = docs.find((d) => d.getIn(['metadata', 'name']) === name);
  if (!doc) throw new Error(`${rel} has no document named ${name}`);
  edit(doc);
  fs.writeFileSync(file, docs.map((d) => d.toString()).join('---\n'));
}

/** The /client/v4 calls the emulator answered since `mark` (the log length taken before). */
export function callsSince(emu: RunningEmulator, mark: number): RecordedRequest[] {
  return emu.requests().slice(mark);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ready` every 10 ms; fails naming `what` after `timeoutMs`. */
export async function waitFor(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Seeded delays, so a failing kill run can be replayed. */
export { seeded } from '../helpers/seeded.js';

/** A workspace of the fixture root with only its API token: one create, never resent. */
export function tokenOnly(): Workspace {
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'user') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  fs.rmSync(ws.file('user/profile.yaml'));
  return ws;
}

/** Creates journaled and not yet answered (0 before the state exists): a create is in flight. */
export async function openIntents(ws: Workspace): Promise<number> {
  try {
    const reader = await openStateStore({ file: ws.state, readOnly: true });
    try {
      return (await reader.snapshot()).intents.size;
    } finally {
      await reader.close();
    }
  } catch {
    return 0;
  }
}
