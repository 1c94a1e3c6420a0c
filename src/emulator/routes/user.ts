// The calling user's operations: 8 create token, 3 update token, 16 roll its secret, 15 edit profile.
// Secrets come back only in the answers of 8 and 16; nothing else shows them.

import type { FastifyInstance } from 'fastify';
import { operation, validBody, type Context } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { hexId } from '../ids.js';

export function registerUserOperations(app: FastifyInstance, ctx: Context): void {
  const { store, tokens } = ctx;

  operation(app, 8, 'POST', '/user/tokens', (req) => {
    const body = validBody(ctx, req);
    const { record, secret } = tokens.create(body, ctx.now());
    return ctx.tokenCreateResult === 'full' ? { ...record, value: secret } : { value: secret };
  });

  operation(app, 3, 'PUT', '/user/tokens/:identifier', (req, p) => {
    const body = validBody(ctx, req);
    if (body.id !== undefined && body.id !== p.identifier) throw badRequest([`id: names token ${String(body.id)}, but the path names ${p.identifier}`]);
    const record = tokens.update(p.identifier, body, ctx.now());
    if (!record) throw notFound(`identifier: no token ${p.identifier}`);
    return record;
  });

  operation(app, 16, 'PUT', '/user/tokens/:identifier/value', (req, p) => {
    // The provider's clients send no body.
    if (req.body !== undefined) validBody(ctx, req);
    const secret = tokens.roll(p.identifier, ctx.now());
    if (secret === undefined) throw notFound(`identifier: no token ${p.identifier}`);
    return secret;
  });

  operation(app, 15, 'PATCH', '/user', (req) => {
    const body = validBody(ctx, req);
    const who = ctx.tokens.userOf(req.headers);
    const before = store.users.get(who) ?? {};
    const profile = { id: before.id ?? hexId(), ...before, ...body };
    store.users.set(who, profile);
    return profile;
  });
}
