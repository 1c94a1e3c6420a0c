// Test helpers: an emulator on port 0 with a hand-moved clock, and a fetch wrapper that
// answers status, headers and parsed JSON.

import { afterEach } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export const startToken = 'start-token-for-tests';
export const t0 = Date.parse('2030-01-01T00:00:00.000Z');

export interface Harness {
  readonly emu: RunningEmulator;
  /** Moves the emulator's clock. */
  advance(ms: number): void;
  call(method: string, path: string, body?: unknown, options?: CallOptions): Promise<Answer>;
}

export interface CallOptions {
  /** Bearer token; null sends no Authorization header. @default startToken */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  /** Sent as is instead of JSON.stringify(body). */
  readonly raw?: string | FormData;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answer's JSON field by field, as the emulator sent it.
  readonly json: any;
  /** The body as text: an answer that is not JSON (server-sent events) has no `json`. */
  readonly text: string;
}

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

export async function harness(options: Partial<EmulatorOptions> = {}): Promise<Harness> {
  let nowMs = t0;
  const emu = await startEmulator({ tokens: [startToken], now: () => nowMs, seed: 7, ...options });
  running.push(emu);
  return {
    emu,
    advance: (ms) => {
      nowMs += ms;
    },
    call: (method, path, body, o = {}) => send(emu.url + path, method, body, o),
  };
}

export async function send(url: string, method: string, body: unknown, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  const token = o.token === undefined ? startToken : o.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload: string | FormData | undefined = o.raw;
  if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
  if (typeof payload === 'string' && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? 'application/json').startsWith('application/json');
  return { status: res.status, headers: res.headers, json: text === '' || !isJson ? undefined : JSON.parse(text), text };
}

/** The messages of an error envelope. */
export const messages = (a: Answer): string[] => (a.json.errors as { message: string }[]).map((e) => e.message);

export const hex32 = /^[0-9a-f]{32}$/;
export const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isoShape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const policies = [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f', name: 'Zone Read' }], resources: { 'com.example.zone.*': '*' } }];
