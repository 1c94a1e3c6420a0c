// An answer is read up to the client's `maxAnswerBytes` and no further: a huge body fails at once,
// as `too-large`, and the executor never asks for the same answer again.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { classifyError } from '../../src/apply/index.js';
import { failureOf, type Handler, startStub, type Stub } from './stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const KiB = 1024;

async function clientFor(handler: Handler, maxAnswerBytes: number) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token', maxAnswerBytes });
}

/** Streams `total` bytes of a JSON string in 16 KiB writes, without a Content-Length. */
function streamed(status: number, total: number): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write('{"result":"');
    let sent = 0;
    const more = () => {
      while (sent < total) {
        sent += 16 * KiB;
        if (!res.write('x'.repeat(16 * KiB))) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.on('error', () => {});
    more();
  };
}

describe('answers over the bound', () => {
  it('stops reading a streamed answer past the bound and says so, with one request sent', async () => {
    const client = await clientFor(streamed(200, 4096 * KiB), 256 * KiB);
    const error = await failureOf(client.rollToken({ identifier: 't1' }, {}));
    expect(error).toMatchObject({ kind: 'too-large', status: 200, reachedServer: true });
    expect(error.message).toBe('rollToken (PUT /user/tokens/t1/value) answered 200 with a body over the 262,144-byte bound (maxAnswerBytes): not read further');
    expect(stub?.received).toHaveLength(1);
  });

  it('refuses an announced Content-Length over the bound before reading the body', async () => {
    const client = await clientFor((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * KiB) });
      res.write('{"success":false');
      res.on('error', () => {});
    }, 256 * KiB);
    const error = await failureOf(client.updateRoute({ zone_id: 'z', route_id: 'r' }, { pattern: 'a.example/*' }));
    expect(error).toMatchObject({ kind: 'too-large', status: 503 });
  });

  it('is never retried: terminal for a PUT, uncertain for a create, even when answered 5xx', async () => {
    const client = await clientFor(streamed(503, 1024 * KiB), 64 * KiB);
    const error = await failureOf(client.updateLogging({ identifier: 'acc' }, { redact_pii: true }));
    expect(classifyError(error, { change: 'write' })).toBe('terminal');
    expect(classifyError(error, { change: 'create' })).toBe('uncertain');
  });

  it('reads an answer right at the bound', async () => {
    const body = JSON.stringify({ result: 'y'.repeat(1000) });
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    }, Buffer.byteLength(body));
    expect(await client.rollToken({ identifier: 't1' }, {})).toBe('y'.repeat(1000));
  });
});
