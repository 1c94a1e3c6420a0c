// The requests the provider's own TypeScript SDK sent, recorded by scripts/sdk-check.mjs, replayed
// byte for byte: the emulator must answer each as it did then, with the envelope the SDK unwraps.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  readonly answer: { success?: boolean; result?: { id?: unknown }; errors?: { code: number; message: string }[]; content_type?: string };
}

const record = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/sdk/requests.json'), 'utf8')) as { sdk: string; requests: Recorded[] };
const TOKEN = 'sdk-replay-token-0123456789';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** Replays every request in order; ids the emulator answered then are swapped for the ones it answers now. */
async function replay(running: RunningEmulator) {
  const ids = new Map<string, string>();
  const swap = (text: string) => [...ids].reduce((t, [from, to]) => t.replaceAll(from, to), text);
  const answers: { recorded: Recorded; status: number; type: string; json?: Record<string, unknown> }[] = [];
  for (const recorded of record.requests) {
    const raw = recorded.body === undefined ? undefined : Buffer.from(recorded.body, 'base64');
    const isJson = (recorded.headers['content-type'] ?? '').startsWith('application/json');
    const body = raw && isJson ? swap(raw.toString('utf8')) : raw;
    const res = await fetch(running.url + swap(recorded.path), { method: recorded.method, headers: { ...recorded.headers, authorization: `Bearer ${TOKEN}` }, body });
    const type = res.headers.get('content-type') ?? '';
    const json = type.startsWith('application/json') ? ((await res.json()) as Record<string, unknown>) : (await res.arrayBuffer(), undefined);
    const then = recorded.answer.result?.id;
    const now = (json?.result as { id?: unknown } | undefined)?.id;
    if (typeof then === 'string' && typeof now === 'string') ids.set(then, now);
    answers.push({ recorded, status: res.status, type, ...(json && { json }) });
  }
  return answers;
}

describe(`the provider SDK's requests (${record.sdk})`, () => {
  it('are answered as when recorded: each success in the full envelope, or the same content type for bytes', async () => {
    emu = await startEmulator({ tokens: [TOKEN], port: 0 });
    const answers = await replay(emu);
    for (const { recorded, status, type, json } of answers) {
      const call = `${recorded.method} ${recorded.path}`;
      expect(status, call).toBe(recorded.status);
      if (recorded.answer.content_type !== undefined) expect(type, call).toBe(recorded.answer.content_type);
      else if (status === 200) expect(json, call).toMatchObject({ success: true, errors: [], messages: [], result: expect.anything() });
    }
  });

  it('cover all 17 operations, and the one refusal is the model name whose slashes the SDK encodes', async () => {
    emu = await startEmulator({ tokens: [TOKEN], port: 0 });
    const answers = await replay(emu);
    const operations = new Set(emu.requests().map((r) => r.operation));
    expect([...operations].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => a.recorded.path)).toEqual([expect.stringMatching(/\/ai\/run\/@cf%2Fmeta%2Fllama/)]);
    expect(refused[0]!.json).toMatchObject({ success: false, errors: [{ code: 7000, message: 'No route for that URI' }] });
  });
});
