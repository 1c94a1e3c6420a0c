// The floors of the resources benchmark, each in a process of its own: the YAML parse of every file (`parse`), and that
// parse plus the same creates sent by a minimal client at edgesync's concurrency (`apply`). JSON on the last stdout line.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Composer, Parser } from 'yaml';
import { checkInteger, checkString, fail } from '../src/util/options.js';
import { withPlainEnv } from '../src/util/plain-env.js';
import { runReportProcess } from './processes.js';
import { benchScript } from './paths.js';

export type FloorMode = 'parse' | 'apply';

export interface ResourcesFloorArgs {
  readonly mode: FloorMode;
  /** The config root, as the generator wrote it. */
  readonly root: string;
  /** The emulator's http://…/client/v4; `apply` only. */
  readonly baseUrl?: string;
  /** Requests in flight at once, as edgesync's `--concurrency` default. @default 4 */
  readonly concurrency?: number;
}

/** What a floor process prints. */
export interface ResourcesFloorReport {
  readonly mode: FloorMode;
  /** Wall time from reading the first file to the last answer, in the process. */
  readonly ms: number;
  readonly documents: number;
  readonly requests: number;
  /** User + system CPU time of the process, start-up included. */
  readonly cpuMs: number;
  /** Peak resident set size (process.resourceUsage().maxRSS is in KiB). */
  readonly maxRssBytes: number;
}

/** Every YAML file under `root`, in name order, as edgesync finds them. */
function yamlFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(root, f));
}

type Doc = { kind: string; metadata: Record<string, string>; spec?: Record<string, unknown> };

/** A create as the minimal client sends it; `first` ones (accounts, scripts) go before the others, as their dependants need. */
interface Call {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly account?: string;
  readonly body: Buffer;
  readonly contentType: string;
  readonly first: boolean;
}

const json = (value: unknown): Pick<Call, 'body' | 'contentType'> => ({ body: Buffer.from(JSON.stringify(value)), contentType: 'application/json' });

/** The upload of an inline-module script: each module a part, then the metadata part naming the main one. */
function multipart(spec: Record<string, unknown>): Pick<Call, 'body' | 'contentType'> {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const part = (name: string, file: string, type: string, content: string) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${file}"\r\ncontent-type: ${type}\r\n\r\n${content}\r\n`;
  const modules = spec.modules as { name: string; content: string }[];
  const parts = modules.map((m) => part(m.name, m.name, 'application/javascript+module', m.content));
  parts.push(part('metadata', 'metadata.json', 'application/json', JSON.stringify({ main_module: spec.main_module })));
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The call that creates a document's object, or none for a Credentials document. */
function callOf({ kind, metadata: m, spec = {} }: Doc): Call | undefined {
  const a = m.account;
  const account = a === undefined ? {} : { account: a };
  switch (kind) {
    case 'Credentials':
      return undefined;
    case 'GatewayAccount':
      return { method: 'POST', path: `/accounts/${a}/gateway`, ...account, ...json({ account_id: a }), first: true };
    case 'WorkerScript':
      return { method: 'PUT', path: `/accounts/${a}/workers/services/${m.service}/environments/${m.environment}/content`, ...account, ...multipart(spec), first: true };
    case 'GatewayList':
      return { method: 'POST', path: `/accounts/${a}/gateway/lists`, ...account, ...json(spec), first: false };
    case 'GatewayLocation':
      return { method: 'POST', path: `/accounts/${a}/gateway/locations`, ...account, ...json(spec), first: false };
    case 'GatewayProxyEndpoint':
      return { method: 'POST', path: `/accounts/${a}/gateway/proxy_endpoints`, ...account, ...json(spec), first: false };
    case 'WorkerDomain':
      return { method: 'PUT', path: `/accounts/${a}/workers/domains`, ...account, ...json(spec), first: false };
    case 'WorkerRoute':
      return { method: 'PUT', path: `/zones/${m.zone}/workers/routes/${m.route}`, ...json(spec), first: false };
    case 'ApiToken':
      return { method: 'POST', path: '/user/tokens', ...json({ name: spec.name, policies: spec.policies }), first: false };
    default:
      return fail('kind', 'a kind the resources generator writes', kind);
  }
}

const cpuMs = (): number => {
  const u = process.resourceUsage();
  return (u.userCPUTime + u.systemCPUTime) / 1000;
};

/** Sends `calls` through `concurrency` workers on one keep-alive agent; throws on any answer but 200. */
async function send(calls: readonly Call[], baseUrl: string, concurrency: number, tokenOf: (account: string | undefined) => string): Promise<void> {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const request = (call: Call): Promise<void> =>
    new Promise((resolve, reject) => {
      const headers = { authorization: `Bearer ${tokenOf(call.account)}`, 'content-type': call.contentType, 'content-length': call.body.length };
      const req = http.request({ host: base.hostname, port: base.port, path: `${base.pathname}${call.path}`, method: call.method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('error', reject)
          .on('end', () => {
            if (res.statusCode === 200) resolve();
            else reject(new Error(`floor: ${call.method} ${call.path}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
          });
      });
      req.on('error', reject).end(call.body);
    });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length) await request(calls[next++]);
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
}

export async function runResourcesFloor(args: ResourcesFloorArgs, env: NodeJS.ProcessEnv): Promise<ResourcesFloorReport> {
  const concurrency = checkInteger('concurrency', args.concurrency ?? 4, 1, 64);
  const started = performance.now();
  const docs: Doc[] = [];
  let documents = 0;
  for (const file of yamlFiles(checkString('root', args.root))) {
    // Parsed as edgesync parses (../config/yaml.ts parseYamlEach), a document at a time with a plain copy of
    // process.env: the floor is the parse's own work, not the library's env reads or a file's nodes kept at once.
    const text = fs.readFileSync(file, 'utf8');
    withPlainEnv(() => {
      for (const doc of new Composer().compose(new Parser().parse(text))) {
        if (doc.errors.length) throw new Error(`floor: ${file}: ${doc.errors[0].message}`);
        documents++;
        if (args.mode === 'apply') docs.push(doc.toJS() as Doc);
      }
    });
  }
  let requests = 0;
  if (args.mode === 'apply') {
    // Each account's token from the variable its Credentials document names; the rest signed by the environment's.
    const tokens = new Map<string, string>();
    for (const d of docs) if (d.kind === 'Credentials') for (const a of d.spec!.accounts as string[]) tokens.set(a, env[(d.spec!.secret as { env: string }).env]!);
    const fallback = env.EDGESYNC_API_TOKEN ?? fail('EDGESYNC_API_TOKEN', 'the emulator token', undefined);
    const tokenOf = (account: string | undefined): string => (account !== undefined && tokens.get(account)) || fallback;
    const calls = docs.map(callOf).filter((c): c is Call => c !== undefined);
    const baseUrl = checkString('baseUrl', args.baseUrl);
    for (const wave of [calls.filter((c) => c.first), calls.filter((c) => !c.first)]) await send(wave, baseUrl, concurrency, tokenOf);
    requests = calls.length;
  }
  return { mode: args.mode, ms: Math.round(performance.now() - started), documents, requests, cpuMs: Math.round(cpuMs()), maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/** The compiled floor. */
const FLOOR = benchScript('resources-floor.js');

/** Runs a floor in a fresh process with `env` (the tokens the config's credentials read) and returns its report. */
export function runResourcesFloorProcess(args: ResourcesFloorArgs, env: NodeJS.ProcessEnv): Promise<ResourcesFloorReport> {
  return runReportProcess<ResourcesFloorReport>(`the ${args.mode} floor`, [FLOOR, args.mode, args.root, ...(args.baseUrl ? [args.baseUrl] : [])], env);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [mode, root, baseUrl] = process.argv.slice(2);
  if (mode !== 'parse' && mode !== 'apply') fail('mode', "'parse' or 'apply'", mode);
  process.stdout.write(`${JSON.stringify(await runResourcesFloor({ mode, root, ...(baseUrl && { baseUrl }) }, process.env))}\n`);
}
