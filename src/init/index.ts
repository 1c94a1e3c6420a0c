// `edgesync init`: a starting config root made of the examples' own documents, one file per kind
// picked (with what it needs), the editor-schema modeline, a .gitignore and a CI recipe.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail } from '../util/options.js';

/** The package's root: dist/init/ or src/init/ is two folders down. */
const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLES = path.join(PACKAGE, 'examples');
const SCHEMA = path.join(PACKAGE, 'schemas', 'edgesync.schema.json');

const CI_RECIPES = { github: '.github/workflows/edgesync.yml', gitlab: '.gitlab-ci.yml' } as const;
type CiRecipe = keyof typeof CI_RECIPES;

/** Each kind: the example file holding its document, and files its document reads beside it. */
const KINDS: Readonly<Record<string, { readonly from: string; readonly beside?: readonly string[]; readonly needs?: readonly string[] }>> = {
  WorkerScript: { from: 'workers/api.yaml', beside: ['api'] },
  WorkerDomain: { from: 'workers/api.yaml', needs: ['WorkerScript'] },
  WorkerRoute: { from: 'workers/api.yaml', needs: ['WorkerScript'] },
  KvPairs: { from: 'kv/kv.yaml', beside: ['pairs.json', 'static'] },
  GatewayAccount: { from: 'zero-trust/gateway.yaml' },
  GatewayList: { from: 'zero-trust/gateway.yaml', needs: ['GatewayAccount'] },
  GatewayLocation: { from: 'zero-trust/gateway.yaml', needs: ['GatewayAccount'] },
  GatewayProxyEndpoint: { from: 'zero-trust/gateway.yaml', needs: ['GatewayAccount'] },
  GatewayLogging: { from: 'zero-trust/gateway.yaml', needs: ['GatewayAccount'] },
  AccessOrganization: { from: 'zero-trust/organization.yaml' },
  ConnectivitySettings: { from: 'zero-trust/organization.yaml' },
  UserProfile: { from: 'user/profile.yaml' },
  ApiToken: { from: 'user/tokens.yaml' },
  Credentials: { from: 'accounts/credentials.yaml' },
  Policy: { from: 'policies/safety.yaml' },
  AiRun: { from: 'ai/summary.yaml' },
};

export const INIT_KINDS = Object.keys(KINDS);
/** What `init` writes without --kinds: a Worker, its route and a KV namespace. */
export const DEFAULT_KINDS = ['WorkerScript', 'WorkerRoute', 'KvPairs'] as const;

export interface InitOptions {
  /** The folder to write the config root in (made when missing). */
  readonly dir: string;
  /** Kinds to write a document of (`--kinds`); what they need is added. @default DEFAULT_KINDS */
  readonly kinds?: readonly string[];
  /** The CI recipe to add (`--ci`). @default none */
  readonly ci?: CiRecipe;
}

/** A file init writes: its path in the new root, and its content or the example file it copies. */
export interface StarterFile {
  readonly path: string;
  readonly content?: string;
  readonly copy?: string;
}

/** The files of a starting root; `kinds` checked against the kinds init knows, in the words typed. */
export function starterFiles(options: InitOptions): StarterFile[] {
  const picked = new Set<string>();
  const add = (kind: string) => {
    if (!KINDS[kind]) fail('--kinds', `kinds among ${INIT_KINDS.join(', ')} (or all)`, kind);
    if (picked.has(kind)) return;
    for (const need of KINDS[kind].needs ?? []) add(need);
    picked.add(kind);
  };
  for (const kind of options.kinds ?? DEFAULT_KINDS) add(kind);

  const files: StarterFile[] = [];
  const copied = new Set<string>();
  for (const kind of picked) {
    const { from, beside = [] } = KINDS[kind]!;
    const file = `${kebab(kind)}.yaml`;
    const modeline = `# yaml-language-server: $schema=${path.relative(options.dir, SCHEMA).split(path.sep).join('/')}`;
    files.push({ path: file, content: `${modeline}\n${documentOf(kind, fs.readFileSync(path.join(EXAMPLES, from), 'utf8'))}` });
    for (const extra of beside) {
      if (copied.has(extra)) continue;
      copied.add(extra);
      for (const rel of filesUnder(path.join(EXAMPLES, path.dirname(from), extra)))
        files.push({ path: path.join(extra, rel), copy: path.join(EXAMPLES, path.dirname(from), extra, rel) });
    }
  }
  files.push({ path: '.gitignore', content: '# The state, its secrets and AI run outputs: never committed.\n.edgesync/\n.out/\n' });
  if (options.ci) files.push({ path: CI_RECIPES[options.ci], copy: path.join(EXAMPLES, 'ci', options.ci, CI_RECIPES[options.ci]) });
  return files;
}

/** The first document of `kind` in an example file, its own modeline dropped, its output kept inside the root. */
function documentOf(kind: string, text: string): string {
  const doc = text.split(/^---$/m).find((d) => new RegExp(`^kind: ${kind}$`, 'm').test(d));
  if (!doc) throw new Error(`The examples hold no ${kind} document: the package is incomplete`);
  return `${doc
    .replace(/^\n/, '')
    .replace(/^# yaml-language-server: .*\n/m, '')
    .replace(/^(\s*output:) \.\.\/\.out\//m, '$1 .out/')
    .trimEnd()}\n`;
}

function filesUnder(at: string): string[] {
  if (!fs.statSync(at).isDirectory()) return [''];
  return (fs.readdirSync(at, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(at, f)).isFile()).sort();
}

const kebab = (kind: string) => kind.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase();

/** Writes `files` under `dir`; refuses, writing nothing, when any of them is there already. */
export function writeStarter(dir: string, files: readonly StarterFile[]): void {
  const there = files.filter((f) => fs.existsSync(path.join(dir, f.path)));
  if (there.length) throw new Error(`${dir} already has ${there.map((f) => f.path).join(', ')}: init writes only into a folder without them, and changed nothing`);
  for (const f of files) {
    const to = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (f.copy !== undefined) fs.copyFileSync(f.copy, to);
    else fs.writeFileSync(to, f.content!);
  }
}
