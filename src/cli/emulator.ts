// `edgesync emulator`: serves the local emulator and prints exactly its base URL on stdout.
// Flags are checked before anything listens; SIGINT/SIGTERM close it cleanly.

import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { EmulatorOptions } from '../emulator/index.js';
import { checkAllowedHost } from '../util/host-check.js';
import { checkInteger, checkNumber, checkString, fail, OptionError, parseRate } from '../util/options.js';

/** The raw flag values as commander hands them over. */
export interface EmulatorFlags {
  readonly port?: string;
  readonly host?: string;
  readonly allowedHost?: readonly string[];
  readonly token?: readonly string[];
  readonly apiKey?: readonly string[];
  readonly serviceKey?: readonly string[];
  readonly failRate?: string;
  readonly rateLimit?: string;
  readonly latency?: string;
  readonly seed?: string;
}

export interface EmulatorIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborting closes the emulator and ends the command. */
  readonly stop: AbortSignal;
}

/** A number when the text reads as one, else the text itself (so the message shows what was typed). */
const numeric = (text: string): number | string => (/^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text);

function parseRateLimit(text: string): { limit: number; windowSeconds: number } {
  const { count, seconds } = parseRate(text, '100/60');
  return { limit: count, windowSeconds: seconds };
}

/**
 * A credential flag's value "SECRET[=ACCOUNT,…]": the secret, and the accounts it is tied to when
 * the text after the last `=` is a list of ids (so a secret's own base64 padding stays its own).
 */
function splitGrant(text: string): { secret: string; accounts?: readonly string[] } {
  const at = text.lastIndexOf('=');
  const list = text.slice(at + 1);
  if (at <= 0 || !/^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$/.test(list)) return { secret: text };
  return { secret: text.slice(0, at), accounts: list.split(',') };
}

/** Options for startEmulator from the flags; a generated token when neither --token nor EDGESYNC_API_TOKEN gives one. */
export function optionsFromFlags(flags: EmulatorFlags, env: EmulatorIo['env']): { options: EmulatorOptions; generatedToken?: string } {
  const grants: { secret: string; accounts: readonly string[] }[] = [];
  const secretOf = (text: string): string => {
    const { secret, accounts } = splitGrant(text);
    if (accounts) grants.push({ secret, accounts });
    return secret;
  };
  let tokens = (flags.token ?? []).map((t) => secretOf(checkString('--token', t)));
  let generatedToken: string | undefined;
  // Trimmed as the client trims it, so the token a client sends is the one accepted.
  const fromEnv = env.EDGESYNC_API_TOKEN?.trim();
  if (tokens.length === 0 && fromEnv) tokens = [fromEnv];
  if (tokens.length === 0) tokens = [(generatedToken = randomBytes(20).toString('hex'))];
  const apiKeys = (flags.apiKey ?? []).map((pair) => {
    const at = pair.indexOf(':');
    if (at <= 0 || at === pair.length - 1) fail('--api-key', 'EMAIL:KEY', '(value not shown)');
    return { email: pair.slice(0, at), key: secretOf(pair.slice(at + 1)) };
  });
  const options: EmulatorOptions = {
    tokens,
    apiKeys,
    serviceKeys: (flags.serviceKey ?? []).map((k) => secretOf(checkString('--service-key', k))),
    grants,
    port: flags.port === undefined ? 0 : checkInteger('--port', numeric(flags.port), 0, 65_535),
    host: flags.host === undefined ? '127.0.0.1' : checkString('--host', flags.host),
    ...(flags.allowedHost?.length && { allowedHosts: flags.allowedHost.map((h) => checkAllowedHost('--allowed-host', h)) }),
    failRate: flags.failRate === undefined ? 0 : checkNumber('--fail-rate', numeric(flags.failRate), 0, 1),
    rateLimit: flags.rateLimit === undefined ? undefined : parseRateLimit(flags.rateLimit),
    latencyMs: flags.latency === undefined ? 0 : checkNumber('--latency', numeric(flags.latency), 0, 600_000),
    seed: flags.seed === undefined ? undefined : checkInteger('--seed', numeric(flags.seed), 0, Number.MAX_SAFE_INTEGER),
  };
  return { options, generatedToken };
}

/** Runs until `io.stop` aborts; the base URL is the only thing written to stdout. */
export async function runEmulator(flags: EmulatorFlags, io: EmulatorIo): Promise<void> {
  const { options, generatedToken } = optionsFromFlags(flags, io.env);
  // Loaded on use: fastify is the heaviest import of the command line.
  const { startEmulator } = await import('../emulator/index.js');
  const emulator = await startEmulator(options);
  if (generatedToken) io.stderr(`edgesync emulator: no --token and no EDGESYNC_API_TOKEN; accepting generated token ${generatedToken}\n`);
  io.stdout(`${emulator.url}\n`);
  if (!io.stop.aborted) await new Promise((resolve) => io.stop.addEventListener('abort', resolve, { once: true }));
  await emulator.close();
}

export function register(program: Command): void {
  program
    .command('emulator')
    .description('serve the local emulator of the interface and print its base URL')
    .option('--port <n>', 'port to listen on (0 = any free port)', '0')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option(
      '--allowed-host <name>',
      "also answer this Host name (NAME, or NAME:PORT), e.g. a reverse proxy's; on a loopback --host only localhost, 127.0.0.1 and [::1] are answered, 421 to any other (repeatable)",
      (t: string, all: string[]) => [...all, t],
      [] as string[],
    )
    .option(
      '--token <token>',
      'accepted bearer token, TOKEN[=ACCOUNT,…] to tie it to accounts (repeatable; default EDGESYNC_API_TOKEN, else generated)',
      (t: string, all: string[]) => [...all, t],
      [] as string[],
    )
    .option(
      '--api-key <email:key>',
      'accepted API key with its account email, sent as X-Auth-Email and X-Auth-Key; EMAIL:KEY[=ACCOUNT,…] (repeatable)',
      (t: string, all: string[]) => [...all, t],
      [] as string[],
    )
    .option(
      '--service-key <key>',
      'accepted user service key, X-Auth-User-Service-Key, for operations 1 and 14; KEY[=ACCOUNT,…] (repeatable)',
      (t: string, all: string[]) => [...all, t],
      [] as string[],
    )
    .option('--fail-rate <p>', 'share of calls answered 500/503 (0..1)')
    .option('--rate-limit <n/seconds>', 'calls allowed per window, then 429 with Retry-After')
    .option('--latency <ms>', 'milliseconds added before each answer')
    .option('--seed <s>', 'seed of the fault generator')
    .action(async (flags: EmulatorFlags) => {
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await runEmulator(flags, {
          stdout: (t) => process.stdout.write(t),
          stderr: (t) => process.stderr.write(t),
          env: process.env,
          stop: controller.signal,
        });
      } catch (err) {
        if (!(err instanceof OptionError)) throw err;
        console.error(err.message);
        process.exitCode = 1;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
