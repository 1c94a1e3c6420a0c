// The daemon's HTTP endpoint: /healthz (alive), /readyz (first reconcile done, config valid),
// /metrics (Prometheus text from the daemon's own registry), /status (JSON) and the status page (/).

import Fastify, { type FastifyInstance } from 'fastify';
import type { Exposition } from './metrics.js';
import { formatError } from '../config/index.js';
import type { AppliedResource, ResourcePage, ResourceQuery, RunRecord } from '../state/types.js';
import { degradedReason, type LoopStatus } from './loop-types.js';
import type { Role } from './leadership.js';
import { revisionOf } from '../config/revision.js';
import type { Access } from './ui/access.js';
import { registerUi } from './ui/routes.js';
import { checkInteger } from '../util/options.js';
import { addHostCheck, type HostCheck } from '../util/host-check.js';

export interface EndpointSources {
  readonly status: () => LoopStatus;
  /** Whether this replica writes the state, or stands by for another (named when known). */
  readonly role: () => Role;
  /** A git source's follower: the remote, the commit last fetched, the last fetch failure. @default none (a folder) */
  readonly source?: () => object;
  /** What the state store holds (StateStore.list). */
  readonly resources: () => Promise<readonly AppliedResource[]>;
  /** A page of the resources read by the state's database, when it can (StateStore.resourcePage): /status with a limit reads only that page. */
  readonly resourcePage?: (query: ResourceQuery) => Promise<ResourcePage | undefined>;
  /** The newest runs the state keeps (StateStore.runs), at most `limit`, before this process's too. */
  readonly history: (limit: number) => Promise<readonly RunRecord[]>;
  /** What /metrics serves (DaemonMetrics.exposition). */
  readonly exposition: Exposition;
  /**
   * Who may read /metrics, /status and the page: open, behind the UI token, or closed (then only
   * /healthz and /readyz are served). @default open
   */
  readonly access?: Access;
  /** The subject of a commit of the config (the page's header). @default none shown */
  readonly commitMessage?: (commit: string) => Promise<string | undefined>;
  /**
   * Answer only a Host naming this machine (or allowed), and 421 to any other: a loopback listener
   * without a UI token, which a DNS-rebinding page could otherwise read. @default any Host
   */
  readonly hostCheck?: HostCheck;
}

/** Runs of the state's history /status shows. */
const STATUS_HISTORY = 20;

/** Why the daemon is not ready, or undefined when it is. */
function notReadyReason(s: LoopStatus): string | undefined {
  if (!s.configValid && s.configErrors.length) return `the config is invalid (${s.configErrors.length} error${s.configErrors.length === 1 ? '' : 's'}); see /status`;
  if (!s.firstRunDone) return 'the first reconcile has not finished yet';
  if (!s.configValid) return 'the config has not been loaded';
  if (s.lastRun?.result === 'held') return `holding: ${s.lastRun.errors[0] ?? 'the plan needs a person'}; see /status`;
  return degradedReason(s);
}

/** How /status narrows its resources: all of them unless asked (a state of 50,000 is megabytes). */
interface ResourceSlice {
  readonly kind?: string;
  /** The state's status: applied, failed, blocked, orphaned, uncertain. */
  readonly status?: string;
  /** A case-blind part of the name or key. */
  readonly q?: string;
  /** @default 0 */
  readonly offset?: number;
  /** @default all */
  readonly limit?: number;
}

/** The query of /status checked: an odd number is refused with the parameter named. */
function resourceSlice(query: Record<string, unknown>): ResourceSlice {
  const int = (name: 'offset' | 'limit', min: number, max: number) => {
    const v = query[name];
    return v === undefined ? undefined : checkInteger(name, /^\d+$/.test(String(v)) ? Number(v) : v, min, max);
  };
  const str = (name: 'kind' | 'status' | 'q') => (typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : undefined);
  const offset = int('offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = int('limit', 1, MAX_LIMIT);
  const kind = str('kind');
  const status = str('status');
  const q = str('q');
  return { ...(kind && { kind }), ...(status && { status }), ...(q && { q: q.toLowerCase() }), ...(offset !== undefined && { offset }), ...(limit !== undefined && { limit }) };
}

/** The most resources one /status answer holds when a limit is asked. */
const MAX_LIMIT = 10_000;

async function statusBody(src: EndpointSources, slice: ResourceSlice = {}) {
  const s = src.status();
  const role = src.role();
  // A page asked for (as the status page asks) is read by the database; the whole list only when asked for whole.
  const page =
    slice.limit !== undefined && src.resourcePage
      ? await src.resourcePage({
          ...(slice.kind && { kind: slice.kind }),
          ...(slice.status && { status: slice.status }),
          ...(slice.q && { q: slice.q }),
          offset: slice.offset ?? 0,
          limit: slice.limit,
        })
      : undefined;
  const [history, resources] = await Promise.all([src.history(STATUS_HISTORY), page ? page.resources : src.resources()]);
  return {
    // The config in force; a newer commit that was refused is `invalidRevision`, beside its errors.
    revision: revisionOf(s.revision, s.digest),
    ...(s.invalidRevision && { invalidRevision: s.invalidRevision }),
    ...(src.source && { source: src.source() }),
    ...role,
    ready: role.role === 'standby' || notReadyReason(s) === undefined,
    running: s.running,
    runs: s.runs,
    configValid: s.configValid,
    configErrors: s.configErrors.map((e) => ({ ...e, text: formatError(e) })),
    lastRun: s.lastRun ?? null,
    history,
    // Resources the config asks for that no run can bring in step until a person acts.
    needsAttention: s.lastRun?.needsAttention ?? [],
    // What the last drift check found (changed or deleted outside edgesync), with the field diffs masked.
    ...(s.driftAt && { drift: s.drift ?? [], driftAt: s.driftAt }),
    ...(s.driftCheckAt && { driftCheckAt: s.driftCheckAt }),
    // Tokens whose expiry is near (--expiry-warning), as the last plan found them; never a secret.
    expiring: s.plan?.expiring ?? [],
    ...(s.dueAt && { dueAt: s.dueAt }),
    ...(page ? listed(resources, page.count) : sliced(resources, slice)),
  };
}

/** Resources as /status lists them, with how many match. */
function listed(resources: readonly AppliedResource[], count: number) {
  return {
    resourceCount: count,
    resources: resources.map((r) => ({
      key: r.key,
      kind: r.kind,
      name: r.name,
      status: r.status,
      ...(r.remoteId !== undefined && { remoteId: r.remoteId }),
      ...(r.appliedAt !== undefined && { appliedAt: r.appliedAt }),
      ...(r.lastError !== undefined && { lastError: r.lastError }),
    })),
  };
}

function sliced(all: readonly AppliedResource[], slice: ResourceSlice) {
  const { kind, status, q } = slice;
  const matching =
    kind || status || q
      ? all.filter((r) => (!kind || r.kind === kind) && (!status || r.status === status) && (!q || r.name.toLowerCase().includes(q) || r.key.toLowerCase().includes(q)))
      : all;
  const offset = slice.offset ?? 0;
  const shown = slice.limit !== undefined || offset ? matching.slice(offset, offset + (slice.limit ?? matching.length)) : matching;
  // How many match, so a client pages with offset and limit; the page at / does the same on the server.
  return listed(shown, matching.length);
}

export function buildServer(src: EndpointSources): FastifyInstance {
  const app = Fastify({ logger: false });
  if (src.hostCheck) addHostCheck(app, src.hostCheck);
  app.get('/healthz', async () => ({ status: 'alive' }));
  app.get('/readyz', async (_req, reply) => {
    // A standby is ready: it is what a rolling update waits for, and it is waiting to take over.
    if (src.role().role === 'standby') return { status: 'standby' };
    const reason = notReadyReason(src.status());
    if (reason) return reply.code(503).send({ status: reason.startsWith('degraded') ? 'degraded' : 'not ready', reason });
    return { status: 'ready' };
  });
  app.setNotFoundHandler(async (_req, reply) => reply.code(404).send({ error: 'not found' }));
  const access = src.access ?? { mode: 'open' };
  if (access.mode === 'closed') return app;
  // One scope: the UI token's check (when asked) guards exactly these routes, not health checks or webhooks.
  void app.register(async (scope) => {
    registerUi(scope, src, access);
    scope.get('/metrics', async (_req, reply) => {
      const text = await src.exposition.metrics();
      return reply.type(src.exposition.contentType).send(text);
    });
    scope.get('/status', async (req, reply) => {
      let slice: ResourceSlice;
      try {
        slice = resourceSlice(req.query as Record<string, unknown>);
      } catch (err) {
        return reply.code(400).send({ error: (err as Error).message });
      }
      return statusBody(src, slice);
    });
  });
  return app;
}
