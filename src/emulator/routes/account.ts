// Account- and zone-scoped writes: 2 organization, 4 domain, 11 route, 12 logging, 13 gateway
// account, 14 AI run, 17 connectivity settings, and the provider's own beyond the 17 (a route and
// the organization created, a route deleted, a domain detached); and their reads.

import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { answer, NO_RESULT, operation, paged, rawAnswer, read, replaceStamped, validBody, type Context } from '../context.js';
import { canonicalJson, sha256 } from '../../util/json.js';
import { compositeKey, hexId, isoTime } from '../ids.js';
import { EmulatorError, ErrorCode, notFound } from '../errors.js';
import { pageOf, type Query } from '../paging.js';
import type { Store } from '../store.js';
import type { ScriptRecord } from '../types.js';
import { scriptAnswer } from '../upload.js';

export function registerAccountOperations(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;
  const now = (): string => isoTime(ctx.now());

  operation(app, ctx, 2, 'PUT', '/accounts/:identifier/access/organizations', (req, p) => {
    const body = validBody(ctx, req);
    const record = { account: p.identifier, ...replaceStamped(store.organizations.get(p.identifier), body, now()) };
    store.organizations.set(p.identifier, record);
    return answer(record);
  });

  // The account's one organization: a second create is refused as Access refuses a second of its
  // singletons (409, access.api.error.conflict); edgesync reads that answer as "it exists: adopt".
  operation(app, ctx, 'createAccessOrganization', 'POST', '/accounts/:account_identifier/access/organizations', (req, p) => {
    const body = validBody(ctx, req);
    if (store.organizations.has(p.account_identifier!)) {
      throw new EmulatorError(409, ['access.api.error.conflict: the account already has a Zero Trust organization'], {}, ErrorCode.accessConflict);
    }
    const record = { account: p.account_identifier!, ...replaceStamped(undefined, body, now()) };
    store.organizations.set(p.account_identifier!, record);
    return answer(record);
  });

  operation(app, ctx, 4, 'PUT', '/accounts/:account_identifier/workers/domains', (req, p) => {
    const body = validBody(ctx, req);
    const key = compositeKey(p.account_identifier, String(body.hostname));
    const id = store.domains.get(key)?.id ?? hexId();
    const record = { account: p.account_identifier, id, ...body, zone_name: zoneNameOf(String(body.hostname)) };
    store.domains.set(key, record);
    return answer(record);
  });

  // The interface has no operation that creates routes: the first PUT stores one.
  operation(app, ctx, 11, 'PUT', '/zones/:zone_id/workers/routes/:route_id', (req, p) => {
    const body = validBody(ctx, req);
    const record = { zone_id: p.zone_id, id: p.route_id, ...body };
    store.routes.set(compositeKey(p.zone_id, p.route_id), record);
    return answer(record, 'zone_id');
  });

  // Both Worker and previews stop answering on the hostname; the envelope carries no result.
  operation(app, ctx, 'detachWorkerDomain', 'DELETE', '/accounts/:account_identifier/workers/domains/:domain_id', (_req, p) => {
    const key = [...store.domains].find(([, d]) => d.account === p.account_identifier && d.id === p.domain_id)?.[0];
    if (key === undefined) throw notFound(`no domain ${p.domain_id} in account ${p.account_identifier}`, ErrorCode.domainNotFound);
    store.domains.delete(key);
    return NO_RESULT;
  });

  // A new id; a pattern another route of the zone has is refused, as the provider refuses it.
  operation(app, ctx, 'createRoute', 'POST', '/zones/:zone_id/workers/routes', (req, p) => {
    const body = validBody(ctx, req);
    const taken = [...store.routes.values()].some((r) => r.zone_id === p.zone_id && r.pattern === body.pattern);
    if (taken) throw new EmulatorError(409, [`A route with the same pattern already exists: ${String(body.pattern)}`], {}, ErrorCode.routeExists);
    const record = { zone_id: p.zone_id!, id: hexId(), ...body };
    store.routes.set(compositeKey(p.zone_id!, record.id), record);
    return answer(record, 'zone_id');
  });

  operation(app, ctx, 'deleteRoute', 'DELETE', '/zones/:zone_id/workers/routes/:route_id', (_req, p) => {
    if (!store.routes.delete(compositeKey(p.zone_id!, p.route_id!))) throw notFound(`no route ${p.route_id} in zone ${p.zone_id}`, ErrorCode.routeNotFound);
    return { id: p.route_id! };
  });

  operation(app, ctx, 12, 'PUT', '/accounts/:identifier/gateway/logging', (req, p) => {
    const body = validBody(ctx, req);
    const record = { account: p.identifier, ...body };
    store.logging.set(p.identifier, record);
    return answer(record);
  });

  // Creating the Zero Trust account twice answers the account created first.
  operation(app, ctx, 13, 'POST', '/accounts/:identifier/gateway', (req, p) => {
    // The provider's clients send no body: the account is the path's.
    const body = req.body === undefined ? { account_id: p.identifier } : validBody(ctx, req);
    const existing = store.gatewayAccounts.get(p.identifier);
    if (existing) return answer(existing, 'account_id');
    const record = { account: p.identifier, account_id: body.account_id, id: hexId(), gateway_tag: hexId(), provider_name: 'edgesync-emulator' };
    store.gatewayAccounts.set(p.identifier, record);
    return answer(record, 'account_id');
  });

  // Model names hold slashes (`@cf/meta/…`): the rest of the path is the name. As the provider does,
  // only literal slashes route; an encoded one (%2F) is "No route for that URI".
  operation(app, ctx, 14, 'POST', '/accounts/:account_identifier/ai/run/*', (req, p) => {
    if (/%2f/i.test(req.url.slice(req.url.indexOf('/ai/run/')))) throw new EmulatorError(400, ['No route for that URI'], {}, ErrorCode.noRoute);
    const model = decodedName(p['*']);
    if (Buffer.isBuffer(req.body)) {
      // Speech models take the audio as the body and answer its transcript.
      if (!SPEECH_MODEL.test(model)) throw new EmulatorError(400, [`${model} takes a JSON input, not ${req.headers['content-type']}`]);
      store.aiRuns += 1;
      return { text: `emulated transcript of ${req.body.length} bytes (${sha256(req.body).slice(0, 12)})` };
    }
    const body = validBody(ctx, req);
    store.aiRuns += 1;
    // Sorted keys, so the same input always hashes the same.
    const inputHash = sha256(`${model}\n${canonicalJson(body)}`);
    // Image models answer the picture itself, as the provider's do: a PNG, not JSON.
    if (IMAGE_MODEL.test(model)) return rawAnswer('image/png', pngOf(inputHash));
    const response = `emulated answer of ${model} (${inputHash.slice(0, 12)})`;
    // Asked to stream, a text model answers server-sent events: the text in pieces, then [DONE].
    if (body.stream === true) return rawAnswer('text/event-stream', serverSentEvents(response));
    return { response, model, input_hash: inputHash };
  });

  operation(app, ctx, 17, 'PATCH', '/accounts/:account_identifier/zerotrust/connectivity_settings', (req, p) => {
    const { offramp_tunnel_enabled: documentName, ...body } = validBody(ctx, req);
    if (documentName !== undefined && body.offramp_warp_enabled !== undefined)
      throw new EmulatorError(400, ['offramp_tunnel_enabled and offramp_warp_enabled name one flag: send one']);
    // Kept under the provider's name, whichever spelling came.
    const sent = documentName === undefined ? body : { ...body, offramp_warp_enabled: documentName };
    const previous = store.connectivity.get(p.account_identifier) ?? { icmp_proxy_enabled: false, offramp_warp_enabled: false };
    const record = { ...previous, ...sent, account: p.account_identifier };
    store.connectivity.set(p.account_identifier, record);
    return answer(record);
  });
}

/** Account-scoped reads are registered under `:account_identifier`, so a credential tied to accounts is checked on them. */
export function registerAccountReads(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;

  read(app, 'worker-script-list-workers', 'GET', '/accounts/:account_identifier/workers/scripts', (req, p) => {
    const scripts = scriptsOf(store, p.account_identifier).map(scriptAnswer);
    const { items, info } = pageOf(scripts, req.query as Query);
    return paged(items, info);
  });

  // The provider answers the modules as multipart form data, naming the main one in CF-Entrypoint.
  read(app, 'worker-environment-get-script-content', 'GET', '/accounts/:account_identifier/workers/services/:service_name/environments/:environment_name/content', (_req, p) => {
    const key = compositeKey(p.account_identifier, p.service_name, p.environment_name);
    const record = store.scripts.get(key);
    if (!record) throw notFound(`no script ${p.service_name} (environment ${p.environment_name}) in account ${p.account_identifier}`, ErrorCode.scriptNotFound);
    const bytes = store.scriptModules.get(key) ?? new Map<string, Buffer>();
    const boundary = `----edgesync${randomBytes(12).toString('hex')}`;
    const parts = record.modules.map((m) => {
      const name = m.name.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\nContent-Type: ${m.content_type}\r\n\r\n`;
      return Buffer.concat([Buffer.from(head, 'utf8'), bytes.get(m.name) ?? Buffer.alloc(0), Buffer.from('\r\n')]);
    });
    const body = Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
    return rawAnswer(`multipart/form-data; boundary=${boundary}`, body, { 'cf-entrypoint': record.main_module });
  });

  read(app, 'worker-script-get-settings', 'GET', '/accounts/:account_identifier/workers/scripts/:script_name/settings', (_req, p) => {
    const record = scriptsOf(store, p.account_identifier).find((r) => r.id === p.script_name);
    if (!record) throw notFound(`no script ${p.script_name} in account ${p.account_identifier}`, ErrorCode.scriptNotFound);
    const { id: _id, etag: _etag, created_on: _c, modified_on: _m, placement_mode: mode, ...kept } = scriptAnswer(record);
    // The content upload applies no bindings or compatibility settings (docs/operations.md, operation 1).
    return { bindings: [], compatibility_flags: [], ...kept, ...(mode !== undefined && { placement: { mode } }) };
  });

  read(app, 'worker-domain-list-domains', 'GET', '/accounts/:account_identifier/workers/domains', (req, p) => {
    const query = req.query as Query;
    const filters = ['zone_name', 'service', 'zone_id', 'hostname', 'environment'].filter((f) => typeof query[f] === 'string');
    const domains = [...store.domains.values()].filter((d) => d.account === p.account_identifier && filters.every((f) => d[f] === query[f])).map((d) => answer(d));
    const { items, info } = pageOf(domains, query);
    return paged(items, info);
  });

  read(app, 'worker-domain-get-a-domain', 'GET', '/accounts/:account_identifier/workers/domains/:domain_id', (_req, p) => {
    const domain = [...store.domains.values()].find((d) => d.account === p.account_identifier && d.id === p.domain_id);
    if (!domain) throw notFound(`no domain ${p.domain_id} in account ${p.account_identifier}`, ErrorCode.domainNotFound);
    return answer(domain);
  });

  read(app, 'worker-routes-list-routes', 'GET', '/zones/:zone_id/workers/routes', (req, p) => {
    const routes = [...store.routes.values()].filter((r) => r.zone_id === p.zone_id).map((r) => answer(r, 'zone_id'));
    const { items, info } = pageOf(routes, req.query as Query);
    return paged(items, info);
  });

  read(app, 'worker-routes-get-route', 'GET', '/zones/:zone_id/workers/routes/:route_id', (_req, p) => {
    const route = store.routes.get(compositeKey(p.zone_id, p.route_id));
    if (!route) throw notFound(`no route ${p.route_id} in zone ${p.zone_id}`, ErrorCode.routeNotFound);
    return answer(route, 'zone_id');
  });

  read(app, 'zero-trust-organization-get-your-zero-trust-organization', 'GET', '/accounts/:account_identifier/access/organizations', (_req, p) => {
    const organization = store.organizations.get(p.account_identifier);
    if (!organization) throw notFound(`no Zero Trust organization in account ${p.account_identifier}`);
    return answer(organization);
  });

  // Settings the account always has: their defaults until written.
  read(app, 'zero-trust-accounts-get-logging-settings-for-the-zero-trust-account', 'GET', '/accounts/:account_identifier/gateway/logging', (_req, p) => {
    const logging = store.logging.get(p.account_identifier);
    return logging ? answer(logging) : { redact_pii: false, settings_by_rule_type: {} };
  });

  read(app, 'zero-trust-accounts-get-connectivity-settings', 'GET', '/accounts/:account_identifier/zerotrust/connectivity_settings', (_req, p) => {
    const settings = store.connectivity.get(p.account_identifier);
    return settings ? answer(settings) : { icmp_proxy_enabled: false, offramp_warp_enabled: false };
  });
}

/** One script per service of the account, as the provider lists them: its production environment's, else the first uploaded. */
function scriptsOf(store: Store, account: string): ScriptRecord[] {
  const byService = new Map<string, ScriptRecord>();
  for (const record of store.scripts.values()) {
    if (record.account !== account) continue;
    const held = byService.get(record.service);
    if (!held || (held.environment !== 'production' && record.environment === 'production')) byService.set(record.service, record);
  }
  return [...byService.values()];
}

/** `data: {"response":…}` events of a few words each, then `data: [DONE]`, as the provider streams. */
function serverSentEvents(text: string): Buffer {
  const pieces = text.match(/\S+\s*/g) ?? [];
  const events = pieces.map((piece) => `data: ${JSON.stringify({ response: piece })}\n\n`);
  return Buffer.from(`${events.join('')}data: [DONE]\n\n`, 'utf8');
}

/** Speech-to-text models, which take audio bytes as the body. */
const SPEECH_MODEL = /whisper|nova|speech/i;

/** Text-to-image models, by the names the provider gives them. */
const IMAGE_MODEL = /stable-diffusion|flux|dreamshaper|lucid-origin|phoenix/i;

/** A 1×1 PNG whose colour comes from `hash`: a real image, the same for the same input. */
function pngOf(hash: string): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const pixel = Buffer.from([0, ...Buffer.from(hash.slice(0, 6), 'hex')]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixel)), chunk('IEND', Buffer.alloc(0))]);
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The zone a hostname belongs to, read as its last two labels. */
function zoneNameOf(hostname: string): string {
  return hostname.split('.').slice(-2).join('.');
}
