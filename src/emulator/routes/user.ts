// The calling user's operations: 8 create, 3 update, 16 roll and the delete of a token, 15 edit profile,
// and their reads. Secrets come back only in the answers of 8 and 16; nothing else shows them.

import type { FastifyInstance } from 'fastify';
import { sha256 } from '../../util/json.js';
import { operation, paged, read, validBody, type Context } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { isoTime } from '../ids.js';
import { pageOf, tokenPerPage, type Query } from '../paging.js';

/** A user's id, the same on every read and write: from whose profile it is, so a read before any edit names it too. */
const userId = (who: string): string => sha256(`user ${who}`).slice(0, 32);

export function registerUserOperations(app: FastifyInstance, ctx: Context): void {
  const { store, tokens } = ctx;

  operation(app, ctx, 8, 'POST', '/user/tokens', (req) => {
    const body = validBody(ctx, req);
    const { record, secret } = tokens.create(body, ctx.now());
    return ctx.tokenCreateResult === 'full' ? { ...record, value: secret } : { value: secret };
  });

  operation(app, ctx, 3, 'PUT', '/user/tokens/:identifier', (req, p) => {
    const body = validBody(ctx, req);
    if (body.id !== undefined && body.id !== p.identifier) throw badRequest([`id: names token ${String(body.id)}, but the path names ${p.identifier}`]);
    const record = tokens.update(p.identifier, body, ctx.now());
    if (!record) throw notFound(`identifier: no token ${p.identifier}`);
    return record;
  });

  operation(app, ctx, 16, 'PUT', '/user/tokens/:identifier/value', (req, p) => {
    // The provider's clients send no body.
    if (req.body !== undefined) validBody(ctx, req);
    const secret = tokens.roll(p.identifier, ctx.now());
    if (secret === undefined) throw notFound(`identifier: no token ${p.identifier}`);
    return secret;
  });

  // The token's secret stops authenticating at once.
  operation(app, ctx, 'deleteToken', 'DELETE', '/user/tokens/:token_id', (_req, p) => {
    if (!tokens.remove(p.token_id!)) throw notFound(`token_id: no token ${p.token_id}`);
    return { id: p.token_id! };
  });

  operation(app, ctx, 15, 'PATCH', '/user', (req) => {
    const body = validBody(ctx, req);
    const who = ctx.tokens.userOf(req.headers);
    const before = store.users.get(who) ?? {};
    const now = isoTime(ctx.now());
    const profile = { id: before.id ?? userId(who), created_on: before.created_on ?? now, ...before, ...body, modified_on: now };
    store.users.set(who, profile);
    return profile;
  });
}

export function registerUserReads(app: FastifyInstance, ctx: Context): void {
  const { store, tokens } = ctx;

  // A profile never edited is answered with its id alone, and not stored by the read.
  read(app, 'user-user-details', 'GET', '/user', (req) => {
    const who = tokens.userOf(req.headers);
    return store.users.get(who) ?? { id: userId(who) };
  });

  read(app, 'user-api-tokens-list-tokens', 'GET', '/user/tokens', (req) => {
    const query = req.query as Query;
    const direction = query.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') throw badRequest([`direction: expected asc or desc, got ${JSON.stringify(direction)}`]);
    const all = tokens.records();
    const { items, info } = pageOf(direction === 'asc' ? all : all.reverse(), query, tokenPerPage);
    return paged(items, info);
  });

  read(app, 'user-api-tokens-token-details', 'GET', '/user/tokens/:identifier', (_req, p) => {
    const record = tokens.records().find((t) => t.id === p.identifier);
    if (!record) throw notFound(`identifier: no token ${p.identifier}`);
    return record;
  });
}
