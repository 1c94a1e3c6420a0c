import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { optionsFromFlags, register, runEmulator } from '../../src/cli/emulator.js';

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe('edgesync emulator flags', () => {
  it('turns flags into emulator options', () => {
    const { options, generatedToken } = optionsFromFlags(
      {
        port: '8787',
        token: ['a', 'b'],
        apiKey: ['ops@example.com:k-1'],
        serviceKey: ['sk-1'],
        failRate: '0.25',
        rateLimit: '100/60',
        latency: '20',
        seed: '9',
        host: '127.0.0.1',
      },
      {},
    );
    expect(options).toEqual({
      tokens: ['a', 'b'],
      apiKeys: [{ email: 'ops@example.com', key: 'k-1' }],
      serviceKeys: ['sk-1'],
      grants: [],
      port: 8787,
      host: '127.0.0.1',
      failRate: 0.25,
      rateLimit: { limit: 100, windowSeconds: 60 },
      latencyMs: 20,
      seed: 9,
    });
    expect(generatedToken).toBeUndefined();
    expect(() => optionsFromFlags({ apiKey: ['no-colon'] }, {})).toThrow('Expected `--api-key` to be EMAIL:KEY, got `(value not shown)`');
  });

  it('ties a token, an API key or a service key to the accounts listed after its last =, and leaves a padded secret whole', () => {
    const { options } = optionsFromFlags({ token: ['t-1=acc-a,acc-b', 'dG9rZW4=='], apiKey: ['ops@example.com:k-1=acc-c'], serviceKey: ['sk-1=acc-d'] }, {});
    expect(options.tokens).toEqual(['t-1', 'dG9rZW4==']);
    expect(options.apiKeys).toEqual([{ email: 'ops@example.com', key: 'k-1' }]);
    expect(options.serviceKeys).toEqual(['sk-1']);
    expect(options.grants).toEqual([
      { secret: 't-1', accounts: ['acc-a', 'acc-b'] },
      { secret: 'k-1', accounts: ['acc-c'] },
      { secret: 'sk-1', accounts: ['acc-d'] },
    ]);
  });

  it('takes --allowed-host names (repeatable) and refuses one that is no Host', () => {
    expect(optionsFromFlags({ allowedHost: ['emulator.internal', 'proxy.example:8080'] }, {}).options.allowedHosts).toEqual(['emulator.internal', 'proxy.example:8080']);
    expect(() => optionsFromFlags({ allowedHost: ['emulator.internal/x'] }, {})).toThrow(/^Expected `--allowed-host` to be a host name, or NAME:PORT/);
  });

  it('takes EDGESYNC_API_TOKEN when no --token is given, else generates one', () => {
    expect(optionsFromFlags({}, { EDGESYNC_API_TOKEN: 'from-env' }).options.tokens).toEqual(['from-env']);
    const generated = optionsFromFlags({}, {});
    expect(generated.options.tokens).toEqual([generated.generatedToken]);
    expect(generated.generatedToken).toMatch(/^[0-9a-f]{40}$/);
  });

  it.each([
    [['--port', 'abc'], 'Expected `--port` to be a number from 0 to 65535, got `abc` (string)'],
    [['--fail-rate', '1.5'], 'Expected `--fail-rate` to be a number from 0 to 1, got `1.5` (number)'],
    [['--rate-limit', '10'], 'Expected `--rate-limit` to be N/SECONDS like 100/60, got `10` (string)'],
    [['--latency', '-5'], 'Expected `--latency` to be a number from 0 to 600000, got `-5` (number)'],
    [['--seed', 'x'], 'Expected `--seed` to be a number from 0 to 9007199254740991, got `x` (string)'],
  ])('refuses %j with the options message and exit code 1', async (args, message) => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((text: string) => void errors.push(text));
    const program = new Command('edgesync').exitOverride();
    register(program);
    await program.parseAsync(['node', 'edgesync', 'emulator', '--token', 't', ...args]);
    expect(errors).toEqual([message]);
    expect(process.exitCode).toBe(1);
  });
});

describe('running the emulator command', () => {
  it('prints exactly the base URL on stdout, serves the token, and closes on stop', async () => {
    const out: string[] = [];
    const err: string[] = [];
    let printed!: () => void;
    const ready = new Promise<void>((resolve) => (printed = resolve));
    const stop = new AbortController();
    const running = runEmulator(
      { token: ['cli-token'] },
      {
        stdout: (t) => {
          out.push(t);
          printed();
        },
        stderr: (t) => void err.push(t),
        env: {},
        stop: stop.signal,
      },
    );
    await ready;
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/client\/v4\n$/);
    const url = out[0].trim();
    const res = await fetch(`${url}/user`, { method: 'PATCH', headers: { authorization: 'Bearer cli-token', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    stop.abort();
    await running;
    await expect(fetch(`${url}/user`, { method: 'PATCH' })).rejects.toThrow();
    expect(err).toEqual([]);
  });
});
