#!/usr/bin/env node
// Drives every operation through the provider's official TypeScript SDK against the emulator and
// prints which calls succeed; with --record FILE, writes the requests it sent for the replay test.
//
//   npm run build && node scripts/sdk-check.mjs [--record test/fixtures/sdk/requests.json]
//
// The SDK is installed on first use into .cache/sdk (not a dependency: it is large and only this
// script needs it). Not part of `npm test`; test/emulator/sdk-requests.test.ts replays the record.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SDK_VERSION = '7.3.0';
const root = path.resolve(import.meta.dirname, '..');
const cache = path.join(root, '.cache', 'sdk');
const ACCOUNT = '0123456789abcdef0123456789abcdef';
const TOKEN = 'sdk-check-token-0123456789';
/** Headers a replay needs; the rest (user agent, retry counts) say nothing about the request's shape. */
const KEPT_HEADERS = ['content-type', 'cf-worker-main-module-part', 'cf-worker-body-part'];

const recordAt = (() => {
  const i = process.argv.indexOf('--record');
  return i === -1 ? undefined : path.resolve(process.argv[i + 1] ?? '');
})();

async function loadSdk() {
  const entry = path.join(cache, 'node_modules', 'cloudflare', 'index.mjs');
  if (!fs.existsSync(entry)) {
    process.stderr.write(`installing cloudflare@${SDK_VERSION} into ${path.relative(root, cache)} …\n`);
    fs.mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['install', '--prefix', cache, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `cloudflare@${SDK_VERSION}`], { stdio: 'inherit' });
  }
  const sdk = await import(pathToFileURL(entry).href);
  const { toFile } = await import(pathToFileURL(path.join(cache, 'node_modules', 'cloudflare', 'uploads.mjs')).href);
  return { Cloudflare: sdk.default, toFile };
}

/** An answer as recorded: a token's secret (create, roll) replaced, though the emulator made it up. */
function withoutSecret(answer) {
  if (typeof answer?.result === 'string') return { ...answer, result: '(secret)' };
  if (typeof answer?.result?.value === 'string') return { ...answer, result: { ...answer.result, value: '(secret)' } };
  return answer;
}

/** A fetch that remembers what each request sent and what came back. */
function recordingFetch(base, recorded) {
  return async (url, init) => {
    const request = new Request(url, init);
    const body = init?.body === undefined || init.body === null ? undefined : Buffer.from(await request.clone().arrayBuffer());
    const response = await fetch(request);
    const type = response.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (request.headers.has(h) ? [[h, request.headers.get(h)]] : [])));
    recorded.push({
      method: request.method,
      path: String(url).slice(base.length),
      headers,
      ...(body && { body: body.toString('base64') }),
      status: response.status,
      answer: type.startsWith('application/json') ? withoutSecret(JSON.parse(bytes.toString('utf8'))) : { content_type: type, size: bytes.length },
    });
    return response;
  };
}

/** Each call: the operation it exercises, what it is, and the SDK doing it. */
function calls(cf, toFile) {
  const ids = {};
  const policies = [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: { [`com.cloudflare.api.account.${ACCOUNT}`]: '*' } }];
  const file = (text, name, type) => toFile(Buffer.from(text), name, { type });
  return [
    [
      1,
      'client.put …/environments/production/content (no SDK method: metadata part + files[])',
      async () => {
        const form = new FormData();
        form.append('metadata', await file(JSON.stringify({ main_module: 'index.js' }), 'metadata.json', 'application/json'));
        form.append('files[]', await file('export default { fetch() { return new Response("hi") } }', 'index.js', 'application/javascript+module'));
        form.append('files[]', await file('export const x = 1;', 'lib.js', 'application/javascript+module'));
        return cf.put(`/accounts/${ACCOUNT}/workers/services/api/environments/production/content`, { body: form });
      },
    ],
    [
      1,
      'client.put …/content with the CF-WORKER-BODY-PART header',
      async () => {
        const form = new FormData();
        form.append('metadata', await file('{}', 'metadata.json', 'application/json'));
        form.append('worker.js', await file('addEventListener("fetch", (e) => e.respondWith(new Response("ok")))', 'worker.js', 'application/javascript'));
        return cf.put(`/accounts/${ACCOUNT}/workers/services/legacy/environments/production/content`, { body: form, headers: { 'CF-WORKER-BODY-PART': 'worker.js' } });
      },
    ],
    [
      2,
      'zeroTrust.organizations.update',
      () => cf.zeroTrust.organizations.update({ account_id: ACCOUNT, name: 'Example', auth_domain: 'example.cloudflareaccess.com', session_duration: '24h' }),
    ],
    [8, 'user.tokens.create', async () => (ids.token = (await cf.user.tokens.create({ name: 'ci', policies })).id)],
    [3, 'user.tokens.update', () => cf.user.tokens.update(ids.token, { name: 'ci-renamed', policies, status: 'active' })],
    [16, 'user.tokens.value.update', () => cf.user.tokens.value.update(ids.token)],
    [
      4,
      'workers.domains.update',
      () => cf.workers.domains.update({ account_id: ACCOUNT, environment: 'production', hostname: 'api.example.com', service: 'api', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' }),
    ],
    [5, 'zeroTrust.gateway.proxyEndpoints.create', () => cf.zeroTrust.gateway.proxyEndpoints.create({ account_id: ACCOUNT, name: 'office', ips: ['192.0.2.0/24'] })],
    [
      6,
      'zeroTrust.gateway.lists.create',
      async () =>
        (ids.list = (
          await cf.zeroTrust.gateway.lists.create({ account_id: ACCOUNT, name: 'Blocked', type: 'DOMAIN', items: [{ value: 'bad.example', description: 'known bad' }] })
        ).id),
    ],
    [9, 'zeroTrust.gateway.lists.update', () => cf.zeroTrust.gateway.lists.update(ids.list, { account_id: ACCOUNT, name: 'Blocked domains', description: 'managed' })],
    [
      7,
      'zeroTrust.gateway.locations.create',
      () => cf.zeroTrust.gateway.locations.create({ account_id: ACCOUNT, name: 'HQ', client_default: false, networks: [{ network: '198.51.100.0/24' }] }),
    ],
    [
      10,
      'kv.namespaces.bulkUpdate',
      () =>
        cf.kv.namespaces.bulkUpdate('0f2ac74b498b48028511e2d1c1a3b9c1', {
          account_id: ACCOUNT,
          body: [
            { key: 'greeting', value: 'hello', metadata: { lang: 'en' } },
            { key: 'ttl', value: 'x', expiration_ttl: 3600 },
          ],
        }),
    ],
    [
      11,
      'workers.routes.update',
      () => cf.workers.routes.update('9a7806061c88ada191ed06f989cc3dac', { zone_id: '023e105f4ecef8ad9ca31a8372d0c353', pattern: 'example.com/api/*', script: 'api' }),
    ],
    [
      12,
      'zeroTrust.gateway.logging.update',
      () => cf.zeroTrust.gateway.logging.update({ account_id: ACCOUNT, redact_pii: true, settings_by_rule_type: { dns: { log_all: true } } }),
    ],
    [13, 'zeroTrust.gateway.create', () => cf.zeroTrust.gateway.create({ account_id: ACCOUNT })],
    [
      14,
      "ai.run (encodes the model name's slashes as %2F: the provider refuses it too)",
      () => cf.ai.run('@cf/meta/llama-3.1-8b-instruct', { account_id: ACCOUNT, prompt: 'Say hi' }),
      'refused',
    ],
    [
      14,
      'client.post …/ai/run/@cf/meta/llama-3.1-8b-instruct (slashes kept)',
      () => cf.post(`/accounts/${ACCOUNT}/ai/run/@cf/meta/llama-3.1-8b-instruct`, { body: { prompt: 'Say hi' } }),
    ],
    [
      14,
      'client.post …/ai/run/@cf/stabilityai/stable-diffusion-xl-base-1.0 (a PNG answer)',
      () => cf.post(`/accounts/${ACCOUNT}/ai/run/@cf/stabilityai/stable-diffusion-xl-base-1.0`, { body: { prompt: 'a lighthouse' }, __binaryResponse: true }),
    ],
    [
      14,
      'client.post …/ai/run/@cf/openai/whisper (audio bytes as the body)',
      () => cf.post(`/accounts/${ACCOUNT}/ai/run/@cf/openai/whisper`, { body: new Uint8Array([82, 73, 70, 70, 0, 1, 2, 3]), headers: { 'content-type': 'audio/wav' } }),
    ],
    [15, 'user.edit', () => cf.user.edit({ first_name: 'Sam', zipcode: null })],
    [17, 'zeroTrust.connectivitySettings.edit', () => cf.zeroTrust.connectivitySettings.edit({ account_id: ACCOUNT, icmp_proxy_enabled: true, offramp_warp_enabled: true })],
  ];
}

async function main() {
  const { Cloudflare, toFile } = await loadSdk();
  const { startEmulator } = await import(pathToFileURL(path.join(root, 'dist', 'emulator', 'index.js')).href);
  const emu = await startEmulator({ tokens: [TOKEN], port: 0 });
  const recorded = [];
  const cf = new Cloudflare({ apiToken: TOKEN, baseURL: emu.url, maxRetries: 0, fetch: recordingFetch(emu.url, recorded) });
  let unexpected = 0;
  try {
    for (const [op, what, run, expected = 'succeeds'] of calls(cf, toFile)) {
      let outcome;
      try {
        await run();
        outcome = 'succeeds';
      } catch (err) {
        outcome = 'refused';
        if (expected !== outcome) process.stdout.write(`      ${err.status ?? ''} ${String(err.message).split('\n')[0]}\n`);
      }
      if (outcome !== expected) unexpected++;
      const sign = outcome === 'succeeds' ? 'ok  ' : 'FAIL';
      process.stdout.write(`${sign} ${String(op).padStart(2)}  ${what}${outcome === expected ? '' : `  (expected: ${expected})`}\n`);
    }
  } finally {
    await emu.close();
  }
  const ok = recorded.filter((r) => r.status < 300).length;
  process.stdout.write(`\ncloudflare@${SDK_VERSION}: ${ok} of ${recorded.length} calls succeeded; ${unexpected} differ from what the provider does.\n`);
  if (recordAt) {
    fs.mkdirSync(path.dirname(recordAt), { recursive: true });
    fs.writeFileSync(recordAt, JSON.stringify({ sdk: `cloudflare@${SDK_VERSION}`, requests: recorded }, null, 2) + '\n');
    process.stdout.write(`recorded ${recorded.length} requests to ${path.relative(process.cwd(), recordAt)}\n`);
  }
  process.exitCode = unexpected ? 1 : 0;
}

await main();
