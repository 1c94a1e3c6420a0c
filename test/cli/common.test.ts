// The flags of apply and watch as a user types them: every refusal names the option the user gave
// (its flag, or the environment variable it came from), never a name internal to the code.

import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { remoteOptions, type ExecOptions } from '../../src/cli/common.js';

const flags: ExecOptions = {
  config: '.',
  state: '/nonexistent/state.db',
  baseUrl: 'http://127.0.0.1:8787/client/v4',
  concurrency: '4',
  rateLimit: '1200/300',
  timeout: '30',
};
const env = { EDGESYNC_API_TOKEN: 'tok' };

describe('a base URL', () => {
  it('without /client/v4 is refused naming --base-url, with the URL it most likely should be', () => {
    expect(() => remoteOptions({ ...flags, baseUrl: 'http://127.0.0.1:8787/' }, env)).toThrow(
      'Expected `--base-url` to be an http(s) URL ending in /client/v4 (such as http://127.0.0.1:8787/client/v4), got `http://127.0.0.1:8787/` (string)',
    );
    expect(() => remoteOptions({ ...flags, baseUrl: 'ftp://example.com/client/v4' }, env)).toThrow(/^Expected `--base-url` to be an http\(s\) URL ending in \/client\/v4, got/);
  });

  it('from EDGESYNC_BASE_URL is refused naming EDGESYNC_BASE_URL', () => {
    expect(() => remoteOptions({ ...flags, baseUrl: 'http://127.0.0.1:8787', givenBy: { baseUrl: 'EDGESYNC_BASE_URL' } }, env)).toThrow(
      /^Expected `EDGESYNC_BASE_URL` to be an http\(s\) URL ending in \/client\/v4/,
    );
  });

  it('is taken without its trailing slash, with the option that gave it for later messages', () => {
    expect(remoteOptions({ ...flags, baseUrl: 'http://127.0.0.1:8787/client/v4/' }, env).remote).toMatchObject({
      baseUrl: 'http://127.0.0.1:8787/client/v4',
      baseUrlFrom: '--base-url',
    });
    expect(remoteOptions({ ...flags, givenBy: { baseUrl: 'EDGESYNC_BASE_URL' } }, env).remote).toMatchObject({ baseUrlFrom: 'EDGESYNC_BASE_URL' });
  });
});

describe('a flag refused', () => {
  it.each([
    [{ concurrency: '0' }, 'Expected `--concurrency` to be a number from 1 to 64, got `0` (number)'],
    [{ timeout: '0' }, 'Expected `--timeout` to be a number of seconds above 0, at most 86400, got `0` (string)'],
    [{ rateLimit: 'lots' }, 'Expected `--rate-limit` to be N/SECONDS like 1200/300, got `lots` (string)'],
    [{ secrets: '' }, 'Expected `--secrets` to be a non-empty string, got `` (string)'],
    [{ outputs: '' }, 'Expected `--outputs` to be a non-empty string, got `` (string)'],
    [{ config: '' }, 'Expected `--config` to be a non-empty string, got `` (string)'],
    [{ state: '' }, 'Expected `--state` to be a non-empty string, got `` (string)'],
    [{ workspace: 'prod' }, 'Expected `--workspace` to be left out for a SQLite state'],
  ])('%o is named as the user typed it', (bad, message) => {
    expect(() => remoteOptions({ ...flags, ...bad }, env)).toThrow(message);
  });
});

describe('the command line', () => {
  it('tells a command which options the environment gave, by their variable', async () => {
    const program = buildProgram();
    let seen: unknown;
    const apply = program.commands.find((c) => c.name() === 'apply')!;
    apply.action((_plan: unknown, opts: { givenBy?: unknown }) => void (seen = opts.givenBy));
    const before = { url: process.env.EDGESYNC_BASE_URL, state: process.env.EDGESYNC_STATE };
    process.env.EDGESYNC_BASE_URL = 'http://127.0.0.1:8787';
    delete process.env.EDGESYNC_STATE;
    try {
      await program.parseAsync(['node', 'edgesync', 'apply', '--state', 'x.db']);
    } finally {
      if (before.url === undefined) delete process.env.EDGESYNC_BASE_URL;
      else process.env.EDGESYNC_BASE_URL = before.url;
      if (before.state !== undefined) process.env.EDGESYNC_STATE = before.state;
    }
    expect(seen).toEqual({ baseUrl: 'EDGESYNC_BASE_URL' });
  });
});

describe('an environment named with --env', () => {
  /** The state and workspace `args` leave to the command they run, as its action sees them. */
  async function stateOf(args: readonly string[], variables: Record<string, string> = {}): Promise<{ state: string; workspace?: string }> {
    const program = buildProgram();
    let seen: { state: string; workspace?: string } | undefined;
    const capture = (command: Command) => command.action((...given: unknown[]) => void (seen = given.at(-2) as typeof seen));
    for (const command of program.commands) {
      if (command.name() === 'state') for (const sub of command.commands) capture(sub);
      else capture(command);
    }
    const before = Object.fromEntries(['EDGESYNC_ENV', 'EDGESYNC_STATE', 'EDGESYNC_WORKSPACE'].map((name) => [name, process.env[name]]));
    for (const name of Object.keys(before)) delete process.env[name];
    Object.assign(process.env, variables);
    try {
      await program.parseAsync(['node', 'edgesync', ...args]);
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    return { state: seen!.state, ...(seen!.workspace !== undefined && { workspace: seen!.workspace }) };
  }

  it('reaches the same state from plan, apply and every state subcommand, with the flag before or after it, or the variable', async () => {
    const own = { state: '.edgesync/environments/staging/state.db' };
    expect(await stateOf(['plan', '--env', 'staging'])).toEqual(own);
    expect(await stateOf(['apply', '--env', 'staging'])).toEqual(own);
    expect(await stateOf(['state', 'list', '--env', 'staging'])).toEqual(own);
    expect(await stateOf(['state', '--env', 'staging', 'runs'])).toEqual(own);
    expect(await stateOf(['state', 'export'], { EDGESYNC_ENV: 'staging' })).toEqual(own);
    expect(await stateOf(['state', 'list'])).toEqual({ state: '.edgesync/state.db' });
  });

  it('leaves a state or workspace given to the command, and is the workspace of a PostgreSQL state given without one', async () => {
    expect(await stateOf(['state', '--state', 'x.db', 'list', '--env', 'staging'])).toEqual({ state: 'x.db' });
    expect(await stateOf(['plan', '--env', 'staging'], { EDGESYNC_STATE: 'y.db' })).toEqual({ state: 'y.db' });
    expect(await stateOf(['state', 'list', '--state', 'postgres://u@db.internal/edgesync', '--env', 'staging'])).toEqual({
      state: 'postgres://u@db.internal/edgesync',
      workspace: 'staging',
    });
    expect(await stateOf(['state', 'list', '--state', 'postgres://u@db.internal/edgesync', '--workspace', 'w', '--env', 'staging'])).toEqual({
      state: 'postgres://u@db.internal/edgesync',
      workspace: 'w',
    });
  });

  it('is refused when it is not a folder name, naming the variable that gave it', async () => {
    await expect(stateOf(['state', '--env', 'a/b', 'list'])).rejects.toThrow(/^Expected `--env` to be a folder name under environments\//);
    await expect(stateOf(['state', 'list'], { EDGESYNC_ENV: '../x' })).rejects.toThrow(/^Expected `EDGESYNC_ENV` to be a folder name under environments\//);
  });
});
