// `npm start`: the emulator in-process on loopback and `edgesync watch` on examples/ against it,
// so a newcomer sees the daemon converge, edits a file, and sees the change applied.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderSource } from './config/source.js';
import { startEmulator, type RunningEmulator } from './emulator/index.js';
import { sqliteBackend } from './state/backend.js';
import { createLogger } from './log.js';
import { startWatch } from './daemon/run.js';
import type { Daemon } from './daemon/index.js';

/** A repeat of the stop signal within this is the same one (see stopCause), not a second request. */
const REPEAT_MS = 1000;
/** How often the parent is looked for. */
const PARENT_POLL_MS = 500;

/**
 * Resolves with the first stop signal (SIGTERM, SIGINT), or 'orphaned' once the process that
 * started this one is gone (npm killed outright, the terminal closed): nobody would be left to stop
 * the daemon and the emulator. `npm start` execs this process, so npm passes SIGTERM and SIGINT on
 * to it and waits for it. A signal again later leaves at once; Ctrl-C reaches this process twice
 * (from the terminal and again from npm), so a repeat within REPEAT_MS is that same key press.
 */
function stopCause(): Promise<NodeJS.Signals | 'orphaned'> {
  const parent = process.ppid;
  let since: number | undefined;
  return new Promise((resolve) => {
    const stop = (cause: NodeJS.Signals | 'orphaned') => {
      if (since === undefined) {
        since = Date.now();
        resolve(cause);
      } else if (cause !== 'orphaned' && Date.now() - since > REPEAT_MS) {
        process.exit(1);
      }
    };
    process.on('SIGTERM', stop).on('SIGINT', stop);
    // process.ppid is read again at each use: it changes when the parent ends and this process is adopted.
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      stop('orphaned');
    }, PARENT_POLL_MS);
    watch.unref();
  });
}

const inUse = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE';

/** Tries the well-known port first, then any free one. */
async function withFallback<T>(start: (port: number) => Promise<T>, port: number): Promise<T> {
  try {
    return await start(port);
  } catch (err) {
    if (!inUse(err)) throw err;
    return start(0);
  }
}

const examples = path.relative(process.cwd(), fileURLToPath(new URL('../examples', import.meta.url))) || '.';
const token = randomBytes(20).toString('hex');
// The staging account's own token, as a real one would be: the emulator accepts it for that account only.
const stagingToken = randomBytes(20).toString('hex');
const stagingAccount = process.env.STAGING_ACCOUNT_ID || 'fedcba9876543210fedcba9876543210';
// The emulator starts empty every time, so a state left by an earlier run would name objects
// (and remote ids) it no longer has: each run starts from a fresh state of its own.
const stateDir = path.join('.edgesync', 'start');
// Left alone while another `npm start` holds it: opening it then fails with the lock message.
if (!fs.existsSync(path.join(stateDir, 'state.db.lock'))) fs.rmSync(stateDir, { recursive: true, force: true });
const logger = createLogger({ pretty: true });
const stopped = stopCause();

const emulator: RunningEmulator = await withFallback(
  (port) => startEmulator({ port, tokens: [token, stagingToken], grants: [{ secret: stagingToken, accounts: [stagingAccount] }] }),
  8787,
);
let daemon: Daemon;
try {
  daemon = await withFallback(
    (port) =>
      startWatch({
        root: {
          source: folderSource(examples),
          state: sqliteBackend(path.join(stateDir, 'state.db')),
          remote: { baseUrl: emulator.url, token },
          // The examples sign their two accounts with two credentials: this run's two tokens.
          env: { ...process.env, EDGESYNC_API_TOKEN: token, STAGING_API_TOKEN: stagingToken },
        },
        listen: { host: '127.0.0.1', port },
        timing: { debounceMs: 200 },
        logger,
      }),
    9300,
  );
} catch (err) {
  await emulator.close();
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}

process.stdout.write(
  [
    '',
    `  emulator   ${emulator.url}  (two tokens generated for this run: main, and staging for its account only)`,
    `  status     ${daemon.url}/status   (also /healthz /readyz /metrics)`,
    `  config     ${examples}/   state in ${stateDir}/`,
    '',
    `  Edit a file under ${examples}/ and watch it apply. Ctrl-C stops both.`,
    '',
  ].join('\n') + '\n',
);

// As `edgesync watch`: SIGHUP reloads rather than ending both processes.
process.on('SIGHUP', () => daemon.reload());
const cause = await stopped;
if (cause === 'orphaned') logger.info({}, 'the process that started this one is gone: stopping');
// Past the shutdown bound, the emulator would wait for the call still in flight: leave at once.
if (!(await daemon.stop())) process.exit(0);
await emulator.close();
