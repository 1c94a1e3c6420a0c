// Account- and zone-scoped PUT/PATCH/POST operations: 2 organization, 4 domain, 11 route,
// 12 logging, 13 gateway account, 14 AI run and 17 connectivity settings.

import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { answer, operation, rawAnswer, replaceStamped, validBody, type Context } from '../context.js';
import { canonicalJson, sha256 } from '../../util/json.js';
import { compositeKey, hexId, isoTime } from '../ids.js';
import { EmulatorError, ErrorCode } from '../errors.js';

export function registerAccountOperations(app: FastifyInstance, ctx: Context): void {
  const { store } = ctx;
  const now = (): string => isoTime(ctx.now());

  operation(app, 2, 'PUT', '/accounts/:identifier/access/organizations', (req, p) => {
    const body = validBody(ctx, req);
    const record = { account: p.identifier, ...replaceStamped(store.organizations.get(p.identifier), body, now()) };
    store.organizations.set(p.identifier, record);
    return answer(record);
  });

  operation(app, 4, 'PUT', '/accounts/:account_identifier/workers/domains', (req, p) => {
    const body = validBody(ctx, req);
    const key = compositeKey(p.account_identifier, String(body.hostname));
    const id = store.domains.get(key)?.id ?? hexId();
    const record = { account: p.account_identifier, id, ...body, zone_name: zoneNameOf(String(body.hostname)) };
    store.domains.set(key, record);
    return answer(record);
  });

  // The interface has no operation that creates routes: the first PUT stores one.
  operation(app, 11, 'PUT', '/zones/:zone_id/workers/routes/:route_id', (req, p) => {
    const body = validBody(ctx, req);
    const record = { zone_id: p.zone_id, id: p.route_id, ...body };
    store.routes.set(compositeKey(p.zone_id, p.route_id), record);
    return answer(record, 'zone_id');
  });

  operation(app, 12, 'PUT', '/accounts/:identifier/gateway/logging', (req, p) => {
    const body = validBody(ctx, req);
    const record = { account: p.identifier, ...body };
    store.logging.set(p.identifier, record);
    return answer(record);
  });

  // Creating the Zero Trust account twice answers the account created first.
  operation(app, 13, 'POST', '/accounts/:identifier/gateway', (req, p) => {
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
  operation(app, 14, 'POST', '/accounts/:account_identifier/ai/run/*', (req, p) => {
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

  operation(app, 17, 'PATCH', '/accounts/:account_identifier/zerotrust/connectivity_settings', (req, p) => {
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
