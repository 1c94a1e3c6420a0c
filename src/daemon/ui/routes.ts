// The status page's routes on the daemon's endpoint: the page, its style sheet and script, the live
// poll and the login; read-only (other methods 405), behind the UI token when one is asked.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoopStatus } from '../loop-types.js';
import { authorized, loginCookie, tokenMatches, type Access } from './access.js';
import { ICON_SVG, PAGE_CSS, PAGE_JS } from './assets.js';
import { pageModel, pageVersion, type ModelSources } from './model.js';
import { liveBody, renderDocument, type PageParts } from './page.js';
import { pageOf, resourceRows, type ResourceRow, type RowQuery } from './resources.js';
import type { AppliedResource } from '../../state/types.js';
import { within } from '../../util/clock.js';

export interface UiSources extends ModelSources {
  readonly resources: () => Promise<readonly AppliedResource[]>;
  readonly status: () => LoopStatus;
}

/** Nothing loaded from elsewhere, no inline script or style, no framing. */
const HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const PAGE_PATHS = ['/', '/ui/live', '/ui/page.css', '/ui/page.js', '/ui/icon.svg', '/login'] as const;
const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const text = (v: unknown, max: number) => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : undefined);

/** The filters of a request's query; anything odd is dropped (a filter that matches nothing is no error). */
function rowQuery(query: unknown): RowQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  const kind = text(q.kind, 100);
  const status = text(q.status, 20);
  const search = text(q.q, 200);
  const page = Number(text(q.page, 9) ?? '1');
  return { ...(kind && { kind }), ...(status && { status }), ...(search && { q: search }), ...(Number.isInteger(page) && page > 1 && { page }) };
}

/**
 * How long an ask waits for rows being derived before it answers with the last ones (or says they are being
 * read). While a run is in flight an ask does not wait: it would be held this long at every derivation
 * (a run's first one, after a start, goes on between the run's own steps), and the page's next poll
 * brings the newer rows.
 */
const ROWS_WAIT_MS = 50;

/** The rows an ask shows, and whether they are those of the version asked for (else the page asks again soon). */
interface Rows {
  readonly rows?: ResourceRow[];
  readonly current: boolean;
}

/**
 * Rows are derived again when the version changes; while a run is in flight, no more often than ten
 * times what the last derivation took (reading 50,000 records takes ~0.6 s: the run goes first). One
 * derivation at a time, shared by every ask meanwhile; an ask waits for it ROWS_WAIT_MS at most, and not
 * at all during a run.
 */
function rowCache(src: UiSources) {
  let kept: { version: string; rows: ResourceRow[]; at: number; tookMs: number } | undefined;
  let deriving: Promise<ResourceRow[]> | undefined;
  const derive = async (version: string): Promise<ResourceRow[]> => {
    const s = src.status();
    const started = Date.now();
    const rows = await resourceRows({
      resources: await src.resources(),
      running: s.running,
      ...(s.plan && { plan: s.plan }),
      ...(s.lastRun && { lastRun: { result: s.lastRun.result, startedAt: s.lastRun.startedAt, errors: s.lastRun.errors } }),
    });
    kept = { version, rows, at: started, tookMs: Date.now() - started };
    return rows;
  };
  return async (version: string): Promise<Rows> => {
    const s = src.status();
    if (kept && (kept.version === version || (s.running && Date.now() - kept.at < 10 * kept.tookMs))) return { rows: kept.rows, current: true };
    if (!deriving) {
      deriving = derive(version).finally(() => {
        deriving = undefined;
      });
      // Its failure is the asks' to see, or no one's once they stopped waiting.
      deriving.catch(() => undefined);
    }
    if (s.running) return { ...(kept && { rows: kept.rows }), current: false };
    const rows = await within(deriving, ROWS_WAIT_MS);
    return rows ? { rows, current: kept?.version === version } : { ...(kept && { rows: kept.rows }), current: false };
  };
}

/** Registers the page, and (with a token) the check that guards everything registered in `scope`. */
export function registerUi(scope: FastifyInstance, src: UiSources, access: Access): void {
  const rows = rowCache(src);
  const parts = async (req: FastifyRequest, version: string): Promise<PageParts> => {
    const query = rowQuery(req.query);
    const [model, got] = await Promise.all([pageModel(src), rows(version)]);
    const page = got.rows ? pageOf(got.rows, query) : { ...pageOf([], query), reading: true as const };
    // Rows older than the version, or the plan's text not rendered yet: the page's next poll differs
    // from this version, so it gets them.
    return { model, rows: page, query, version: got.current && !model.planPending ? version : `${version}-reading` };
  };
  if (access.mode === 'token') {
    scope.addHook('onRequest', async (req, reply) => {
      if (req.routeOptions.url === '/login') return;
      if (!authorized(access.token, req.headers)) return reply.code(401).header('www-authenticate', 'Bearer realm="edgesync"').send();
    });
  }
  scope.addHook('onSend', async (req, reply) => {
    if ((PAGE_PATHS as readonly string[]).includes(req.routeOptions.url ?? '')) reply.headers(HEADERS);
  });

  // The page last rendered, by version and query: asks while nothing moved (a probe, several open
  // tabs) get the same bytes, as the live poll answers 204 for a version it has.
  let rendered: { readonly key: string; readonly body: Buffer } | undefined;
  scope.get('/', async (req, reply) => {
    const version = pageVersion(src, Date.now());
    const key = `${version} ${JSON.stringify(req.query)}`;
    reply.type('text/html; charset=utf-8');
    if (rendered?.key === key) return reply.send(rendered.body);
    const page = await parts(req, version);
    const body = Buffer.from(renderDocument(page));
    // Rows still being read are not kept: the next ask may have them.
    rendered = page.version === version ? { key, body } : undefined;
    return reply.send(body);
  });
  scope.get('/ui/live', async (req, reply) => {
    const version = pageVersion(src, Date.now());
    if ((req.query as Record<string, unknown>).v === version) return reply.code(204).send();
    return liveBody(await parts(req, version));
  });
  scope.get('/ui/page.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(PAGE_CSS));
  scope.get('/ui/page.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(PAGE_JS));
  scope.get('/ui/icon.svg', async (_req, reply) => reply.type('image/svg+xml').send(ICON_SVG));
  scope.get('/login', async (req, reply) => {
    // Open access has nothing to log in to: the page is one click away.
    if (access.mode !== 'token') return reply.redirect('/', 303);
    if (!tokenMatches((req.query as Record<string, unknown>).token, access.token)) return reply.code(401).send();
    return reply.header('set-cookie', loginCookie(access.token)).redirect('/', 303);
  });
  const refuse = async (_req: FastifyRequest, reply: FastifyReply) => reply.code(405).header('allow', 'GET, HEAD').send();
  for (const url of PAGE_PATHS) scope.route({ method: [...OTHER_METHODS], url, handler: refuse });
}
