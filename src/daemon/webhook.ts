// POST /hooks/git: a push webhook (GitHub's X-Hub-Signature-256 or GitLab's X-Gitlab-Token, checked
// in constant time against the secret) that asks for a fetch; other refs and a delivery id already
// received are ignored. What the fetch asked for becomes (at once, or later under the follower's
// rate) is the follower's answer: see git-follow.ts.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ANY_HOST } from '../util/host-check.js';
import type { PushAnswer } from './git-follow.js';

/** GitHub and GitLab send pushes well under this; a larger body is refused unread. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export interface GitHookOptions {
  /** The shared secret (--webhook-secret-file), never shown. */
  readonly secret: string;
  /** The ref followed (branch, tag or commit): a push to another branch or tag is ignored. */
  readonly ref: string;
  /**
   * A push to the followed ref: asks for a fetch, and says whether it starts now or later (the
   * answer's body). @default answered as fetching
   */
  readonly onPush: () => PushAnswer | undefined;
}

export interface HookAnswer {
  readonly status: 200 | 202 | 400 | 401;
  readonly body: { readonly status: string; readonly reason?: string };
}

const same = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/** Whether the request is signed with the secret: GitHub's HMAC of the raw body, or GitLab's token. */
function signedWith(headers: Record<string, string | string[] | undefined>, body: Buffer, secret: string): boolean {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const github = one('x-hub-signature-256');
  if (github !== undefined) {
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return same(Buffer.from(github), Buffer.from(expected));
  }
  const gitlab = one('x-gitlab-token');
  if (gitlab !== undefined) return same(Buffer.from(gitlab), Buffer.from(secret));
  return false;
}

/** Whether a push to `pushed` (refs/heads/x, refs/tags/x) concerns the followed ref. */
export function followsRef(pushed: string, followed: string): boolean {
  if (followed === 'HEAD' || /^[0-9a-f]{40,64}$/.test(followed)) return true;
  const name = followed.replace(/^refs\/(heads|tags)\//, '');
  return pushed === followed || pushed === `refs/heads/${name}` || pushed === `refs/tags/${name}`;
}

/**
 * Deliveries already received (GitHub's X-GitHub-Delivery, GitLab's X-Gitlab-Event-UUID), the
 * newest `limit` kept: a provider's redelivery of one id is ignored while its id is remembered.
 * This is no defence against a replay under a new id (the id is not signed); the follower's rate
 * limit bounds what such replays cost.
 */
function recentIds(limit = 1000) {
  const seen = new Set<string>();
  return (id: string | undefined): boolean => {
    if (!id) return false;
    if (seen.has(id)) return true;
    seen.add(id);
    if (seen.size > limit) seen.delete(seen.values().next().value as string);
    return false;
  };
}

/** Decides what one request gets; pure but for `replayed`. */
export function answerPush(
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  options: Pick<GitHookOptions, 'secret' | 'ref'>,
  replayed: (id: string | undefined) => boolean,
): HookAnswer & { readonly fetch: boolean } {
  if (!signedWith(headers, body, options.secret)) return { status: 401, body: { status: 'refused', reason: 'missing or wrong signature' }, fetch: false };
  const event = headers['x-github-event'] ?? headers['x-gitlab-event'];
  if (event === 'ping') return { status: 200, body: { status: 'pong' }, fetch: false };
  let ref: unknown;
  try {
    ref = (JSON.parse(body.toString('utf8')) as { ref?: unknown } | null)?.ref;
  } catch {
    return { status: 400, body: { status: 'refused', reason: 'the body is not JSON' }, fetch: false };
  }
  if (typeof ref !== 'string') return { status: 200, body: { status: 'ignored', reason: 'not a push (no ref)' }, fetch: false };
  if (!followsRef(ref, options.ref)) return { status: 200, body: { status: 'ignored', reason: `a push to ${ref}, not to ${options.ref}` }, fetch: false };
  const id = headers['x-github-delivery'] ?? headers['x-gitlab-event-uuid'];
  if (replayed(Array.isArray(id) ? id[0] : id)) return { status: 200, body: { status: 'ignored', reason: 'this delivery was already received' }, fetch: false };
  return { status: 202, body: { status: 'fetching' }, fetch: true };
}

/** Adds the route to the daemon's endpoint; it reads the raw body (for the signature) up to WEBHOOK_BODY_LIMIT. */
export function registerGitHook(app: FastifyInstance, options: GitHookOptions): void {
  const replayed = recentIds();
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    // Signed on every request, so any Host may reach it (a forge through a reverse proxy that keeps its own).
    scope.post('/hooks/git', { config: ANY_HOST }, async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const answer = answerPush(request.headers, body, options, replayed);
      if (answer.fetch) {
        // 202 either way: the push is taken, and a later fetch will read it when this one does not.
        const asked = options.onPush();
        if (asked) return reply.code(202).send(asked.reason === undefined ? { status: asked.status } : asked);
      }
      return reply.code(answer.status).send(answer.body);
    });
  });
}
