// The resources benchmark's config: N documents of the kinds the emulator takes by plain creates, spread over
// accounts (each with its own Credentials and GatewayAccount), 100 documents a YAML file, the same bytes for the same seed.

import fs from 'node:fs';
import path from 'node:path';
import { checkInteger } from '../src/util/options.js';
import { random } from './generate.js';

/** What to write into a config root. */
export interface ResourcesDataOptions {
  /** Documents in all, Credentials included; at least two per account. */
  readonly resources: number;
  /** Accounts the documents are spread over, each with one Credentials and one GatewayAccount. @default 20 */
  readonly accounts?: number;
  /** Documents per YAML file. @default 100 */
  readonly perFile?: number;
  /** Seed of the ids and contents, so every run writes the same bytes. @default 1 */
  readonly seed?: number;
}

/** One account of the config: its id, its zone, and the variable its credential's secret is read from. */
export interface BenchAccount {
  readonly id: string;
  readonly zone: string;
  readonly tokenEnv: string;
}

/** A GatewayList the daemon part edits: where it is, and the description line written for it. */
interface ListRef {
  readonly file: string;
  readonly name: string;
  readonly account: string;
  readonly descriptionLine: string;
}

export interface GeneratedConfig {
  readonly files: readonly string[];
  readonly accounts: readonly BenchAccount[];
  /** Documents per kind. */
  readonly counts: Readonly<Record<string, number>>;
  readonly lists: readonly ListRef[];
}

/**
 * The kinds after each account's Credentials and GatewayAccount, in a repeating cycle of 20: a script comes first,
 * so every domain and route after it has one to attach to. 15% scripts, 30% lists, 10% domains, 15% routes,
 * 15% locations, 10% proxy endpoints, 5% tokens.
 */
const CYCLE = [
  'WorkerScript',
  'GatewayList',
  'WorkerDomain',
  'WorkerRoute',
  'GatewayList',
  'GatewayLocation',
  'GatewayProxyEndpoint',
  'GatewayList',
  'WorkerScript',
  'WorkerDomain',
  'GatewayList',
  'GatewayLocation',
  'WorkerRoute',
  'GatewayList',
  'ApiToken',
  'WorkerScript',
  'GatewayProxyEndpoint',
  'GatewayList',
  'GatewayLocation',
  'WorkerRoute',
] as const;

const hex = (next: () => number, digits: number): string => Array.from({ length: digits }, () => Math.floor(next() * 16).toString(16)).join('');
const word = (next: () => number): string => Array.from({ length: 8 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 26)]).join('');
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Documents of account `a` out of `total` over `accounts`: an even share, the first ones one more. */
const accountShare = (a: number, total: number, accounts: number): number => Math.floor(total / accounts) + (a < total % accounts ? 1 : 0);

/** The options with their defaults, each checked: throws an OptionError naming the first one wrong. */
function checkResourcesDataOptions(options: ResourcesDataOptions): Required<ResourcesDataOptions> {
  const accounts = checkInteger('accounts', options.accounts ?? 20, 1, 1000);
  return {
    accounts,
    resources: checkInteger('resources', options.resources, 2 * accounts),
    perFile: checkInteger('perFile', options.perFile ?? 100, 1),
    seed: checkInteger('seed', options.seed ?? 1, 0),
  };
}

const header = (kind: string): string => `apiVersion: edgesync/v1\nkind: ${kind}\nmetadata:\n`;

/** Writes `resources-NNNN.yaml` files into `root` (which must exist) and says what they hold. */
export function writeResourcesConfig(root: string, options: ResourcesDataOptions): GeneratedConfig {
  const { resources, accounts: accountCount, perFile, seed } = checkResourcesDataOptions(options);
  const next = random(seed);
  const accounts: BenchAccount[] = Array.from({ length: accountCount }, (_, a) => ({ id: hex(next, 32), zone: hex(next, 32), tokenEnv: `BENCH_TOKEN_${pad(a, 3)}` }));
  const counts: Record<string, number> = {};
  const docs: { kind: string; text: string; list?: Omit<ListRef, 'file'> }[] = [];
  const add = (kind: string, text: string, list?: Omit<ListRef, 'file'>): void => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    docs.push({ kind, text, ...(list && { list }) });
  };
  accounts.forEach((account, a) => {
    const acct = `a${pad(a, 3)}`;
    const host = `${acct}.bench.example.com`;
    add('Credentials', `${header('Credentials')}  name: ${acct}\nspec:\n  secret: { env: ${account.tokenEnv} }\n  accounts: ["${account.id}"]\n`);
    add('GatewayAccount', `${header('GatewayAccount')}  name: zero-trust-${acct}\n  account: "${account.id}"\n`);
    let service = '';
    const share = accountShare(a, resources, accountCount);
    for (let i = 0; i < share - 2; i++) {
      const kind = CYCLE[i % CYCLE.length];
      const name = `${acct}-${pad(i, 5)}`;
      const scoped = `${header(kind)}  name: ${name}\n  account: "${account.id}"\n`;
      if (kind === 'WorkerScript') {
        service = `svc-${name}`;
        const body = `export default { fetch: () => new Response("${service} ${word(next)}") };`;
        add(kind, `${scoped}  service: ${service}\n  environment: production\nspec:\n  main_module: index.js\n  modules:\n    - name: index.js\n      content: '${body}'\n`);
      } else if (kind === 'GatewayList') {
        const descriptionLine = `  description: List ${name} ${word(next)}`;
        const items = Array.from({ length: 3 }, () => `    - value: ${word(next)}.example.net\n`).join('');
        add(kind, `${scoped}spec:\n  name: List ${name}\n${descriptionLine}\n  type: DOMAIN\n  items:\n${items}`, { name, account: account.id, descriptionLine });
      } else if (kind === 'WorkerDomain') {
        add(kind, `${scoped}spec:\n  environment: production\n  hostname: ${name}.${host}\n  service: ${service}\n  zone_id: "${account.zone}"\n`);
      } else if (kind === 'WorkerRoute') {
        add(kind, `${header(kind)}  name: ${name}\n  zone: "${account.zone}"\n  route: "${hex(next, 32)}"\nspec:\n  pattern: ${host}/${name}/*\n  script: ${service}\n`);
      } else if (kind === 'GatewayLocation') {
        const network = `10.${a % 256}.${Math.floor(next() * 256)}.0/24`;
        add(kind, `${scoped}spec:\n  name: Location ${name}\n  client_default: false\n  ecs_support: false\n  networks:\n    - network: ${network}\n`);
      } else if (kind === 'GatewayProxyEndpoint') {
        add(kind, `${scoped}spec:\n  name: Proxy ${name}\n  ips:\n    - 192.0.2.${Math.floor(next() * 256)}/32\n`);
      } else {
        add(
          kind,
          `${header(kind)}  name: token-${name}\nspec:\n  name: Token ${name}\n  policies:\n    - effect: allow\n      permission_groups:\n` +
            `        - id: c8fed203ed3043cba015a93ad1616f1f\n          name: Zone Read\n      resources:\n        com.cloudflare.api.account.zone.${account.zone}: "*"\n`,
        );
      }
    }
  });
  const files: string[] = [];
  const lists: ListRef[] = [];
  const width = Math.max(4, String(Math.ceil(docs.length / perFile)).length);
  for (let at = 0; at < docs.length; at += perFile) {
    const file = path.join(root, `resources-${pad(at / perFile, width)}.yaml`);
    const part = docs.slice(at, at + perFile);
    fs.writeFileSync(file, part.map((d) => d.text).join('---\n'));
    files.push(file);
    for (const d of part) if (d.list) lists.push({ file, ...d.list });
  }
  return { files, accounts, counts, lists };
}

/** The environment the config's credentials read: each account's variable set to its token. */
export function credentialsEnv(accounts: readonly BenchAccount[], tokenOf: (account: BenchAccount) => string): Record<string, string> {
  return Object.fromEntries(accounts.map((account) => [account.tokenEnv, tokenOf(account)]));
}
