// The provider's reads as the client sends them: GET without a body, the query encoded after the
// path was checked, and a list followed page by page, whichever way the provider pages it.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { failureOf, reply, startStub, type Handler, type Stub } from './stub.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const NAMESPACE = 'fedcba9876543210fedcba9876543210';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function clientOn(handler: Handler) {
  stub = await startStub(handler);
  return createClient({ baseUrl: stub.url, token: 'secret-token-of-the-test' });
}

/** Answers a list of `total` numbered objects, `per` a page, by page number or by cursor. */
function pagedServer(total: number, per: number, by: 'page' | 'cursor'): Handler {
  return (req, res) => {
    const url = new URL(req.url, 'http://x');
    const from = by === 'page' ? (Number(url.searchParams.get('page') ?? '1') - 1) * per : Number(url.searchParams.get('cursor') || '0');
    const result = Array.from({ length: Math.max(0, Math.min(per, total - from)) }, (_, i) => ({ id: `object-${from + i}` }));
    const info =
      by === 'page'
        ? { page: from / per + 1, per_page: per, count: result.length, total_count: total, total_pages: Math.ceil(total / per) }
        : { count: result.length, cursor: from + per < total ? String(from + per) : '' };
    reply(200, { success: true, errors: [], messages: [], result, result_info: info })(req, res);
  };
}

async function collect(pages: AsyncIterable<{ items: readonly unknown[] }>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of pages) out.push(...page.items);
  return out;
}

describe('a read', () => {
  it('is a GET without a body, signed, at the path with its parameters encoded', async () => {
    const client = await clientOn(reply(200, { success: true, result: { id: 'list-1', name: 'blocked' } }));
    expect(await client.read('getList', { account_id: ACCOUNT, list_id: 'list-1' })).toEqual({ id: 'list-1', name: 'blocked' });
    const [received] = stub!.received;
    expect(received).toMatchObject({ method: 'GET', url: `/client/v4/accounts/${ACCOUNT}/gateway/lists/list-1` });
    expect(received!.body.length).toBe(0);
    expect(received!.headers['content-length']).toBeUndefined();
    expect(received!.headers.authorization).toBe('Bearer secret-token-of-the-test');
  });

  it('sends only the query it is given, encoded, after a path that stays the read’s', async () => {
    const client = await clientOn(pagedServer(0, 10, 'cursor'));
    await collect(client.pages('listKvKeys', { account_id: ACCOUNT, namespace_id: NAMESPACE }, { query: { limit: '1000', prefix: 'a&b=c/../d' } }));
    expect(stub!.received[0]!.url).toBe(`/client/v4/accounts/${ACCOUNT}/storage/kv/namespaces/${NAMESPACE}/keys?limit=1000&prefix=a%26b%3Dc%2F..%2Fd`);
    await expect(client.read('getList', { account_id: ACCOUNT, list_id: '..' })).rejects.toThrow(/would move the call to another path/);
  });

  it('says a 404 is a 404, naming the read', async () => {
    const client = await clientOn(reply(404, { success: false, errors: [{ code: 7003, message: 'Could not route' }], messages: [], result: null }));
    const error = await failureOf(client.read('getLocation', { account_id: ACCOUNT, location_id: 'gone' }));
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/getLocation/);
  });

  it('refuses an answer whose result is not the list a list read documents', async () => {
    const client = await clientOn(reply(200, { success: true, result: { id: 'not-a-list' } }));
    await expect(collect(client.pages('listLists', { account_id: ACCOUNT }))).rejects.toThrow(/its result is an object, where a list is documented/);
  });
});

describe('a list read', () => {
  it.each([0, 1, 20, 21, 95])('walks %i objects by page number, each once, one call a page', async (total) => {
    const client = await clientOn(pagedServer(total, 20, 'page'));
    const seen = await collect(client.pages('listTokens', {}, { query: { per_page: '20' } }));
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => ({ id: `object-${i}` })));
    expect(stub!.received).toHaveLength(Math.max(1, Math.ceil(total / 20)));
    expect(stub!.received.map((r) => new URL(r.url, 'http://x').searchParams.get('page') ?? '1')).toEqual(stub!.received.map((_, i) => String(i + 1)));
  });

  it.each([0, 1, 1000, 2500])('walks %i keys by cursor, each once', async (total) => {
    const client = await clientOn(pagedServer(total, 1000, 'cursor'));
    const seen = await collect(client.pages('listKvKeys', { account_id: ACCOUNT, namespace_id: NAMESPACE }, { query: { limit: '1000' } }));
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((s) => (s as { id: string }).id)).size).toBe(total);
    expect(stub!.received).toHaveLength(Math.max(1, Math.ceil(total / 1000)));
  });

  it('follows the pages a list said to come whole names, and stops at a cursor answered again', async () => {
    const client = await clientOn(pagedServer(45, 20, 'page'));
    expect(await collect(client.pages('listLocations', { account_id: ACCOUNT }))).toHaveLength(45);
    await stub!.close();
    const repeating = await clientOn(reply(200, { success: true, result: [{ name: 'k' }], result_info: { cursor: 'same' } }));
    expect(await collect(repeating.pages('listKvKeys', { account_id: ACCOUNT, namespace_id: NAMESPACE }, { query: { cursor: 'same' } }))).toHaveLength(1);
  });

  it('is refused for a read of one object', async () => {
    const client = await clientOn(reply(200, { result: {} }));
    await expect(collect(client.pages('getUser', {}))).rejects.toThrow('getUser reads one object, not a list');
  });
});
