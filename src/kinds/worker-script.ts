// WorkerScript (operation 1, PUT multipart): module files and content types; the metadata part
// only names the main module. The request keeps each module's hash; the payload carries contents.

import { formatBytes } from '../util/format.js';
import { sha256, type Json } from '../util/json.js';
import { compact, isObject } from './diff.js';
import { putKind, resultField } from './families.js';
import type { Built, BuildContext, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';
import { contentTypeOf, type ScriptModule, type ScriptUpload } from './worker-modules.js';

export type { ScriptUpload } from './worker-modules.js';

interface ModuleSpec {
  readonly name: string;
  readonly file?: string;
  readonly content?: string;
}

/** The only fields the operation's metadata part takes: it uploads modules, nothing else. */
const MAIN_KEYS = ['main_module', 'body_part'] as const;

/** The main module, from spec or spec.metadata (either spelling, the same value), and what metadata may not hold. */
function mainOf(spec: { [key: string]: Json }, ctx: BuildContext): { mainKey: (typeof MAIN_KEYS)[number]; main: Json | undefined; esModules: boolean } {
  const extra = isObject(spec.metadata) ? spec.metadata : {};
  for (const key of Object.keys(extra)) {
    if (MAIN_KEYS.includes(key as (typeof MAIN_KEYS)[number])) continue;
    ctx.issue(
      ['spec', 'metadata', key],
      `not taken: this operation uploads modules only, and its metadata names the main module (main_module or body_part); ${key} is a script setting it does not set`,
    );
  }
  const named = (key: (typeof MAIN_KEYS)[number]): Json | undefined => {
    if (spec[key] !== undefined && extra[key] !== undefined && spec[key] !== extra[key]) {
      ctx.issue(['spec', 'metadata', key], `expected the same ${key} as spec.${key} (${String(spec[key])}), got ${String(extra[key])}`);
    }
    return spec[key] ?? extra[key];
  };
  const mainModule = named('main_module');
  const bodyPart = named('body_part');
  if (mainModule === undefined && bodyPart === undefined) {
    ctx.issue(['spec'], 'expected main_module (ES modules) or body_part (service worker) naming the main module');
  }
  if (mainModule !== undefined && bodyPart !== undefined) {
    ctx.issue(['spec', 'body_part'], 'expected either main_module or body_part, not both');
  }
  const esModules = mainModule !== undefined;
  return esModules ? { mainKey: 'main_module', main: mainModule, esModules } : { mainKey: 'body_part', main: bodyPart, esModules };
}

function build(doc: ResourceDocument, ctx: BuildContext): Built {
  const spec = isObject(doc.spec) ? doc.spec : {};
  const { mainKey, main, esModules } = mainOf(spec, ctx);
  const specs = (Array.isArray(spec.modules) ? spec.modules : []) as unknown as ModuleSpec[];
  const modules: ScriptModule[] = [];
  const seen = new Set<string>();
  specs.forEach((module, i) => {
    if (seen.has(module.name)) ctx.issue(['spec', 'modules', i, 'name'], `module ${module.name} is listed twice`);
    seen.add(module.name);
    const content = module.file !== undefined ? ctx.readFile(module.file, ['spec', 'modules', i, 'file']) : Buffer.from(module.content ?? '', 'utf8');
    const contentType = contentTypeOf(module.file !== undefined && !/\.\w+$/.test(module.name) ? module.file : module.name, esModules);
    if (content) modules.push({ name: module.name, content, contentType });
  });
  if (typeof main === 'string' && !seen.has(main)) {
    ctx.issue(['spec', mainKey], `expected the main module to be one of the modules (${[...seen].join(', ') || 'none listed'}), got ${main}`);
  }
  const metadata = compact({ [mainKey]: main });
  const request: Json = {
    metadata,
    modules: modules.map((m) => ({ name: m.name, content_type: m.contentType, sha256: sha256(m.content) })),
  };
  const payload: ScriptUpload = { metadata, modules };
  return { request, payload };
}

registerKind(
  putKind({
    kind: 'WorkerScript',
    scopeKeys: ['account', 'service', 'environment'],
    paramMap: { account: 'account_identifier', service: 'service_name', environment: 'environment_name' },
    operation: 'putScriptContent',
    targets: (self) => [{ what: `script ${self.scope.service} (environment ${self.scope.environment}) of account ${self.scope.account}`, at: ['metadata', 'service'] }],
    build,
    body: (desired) => desired.payload,
    // The upload names its modules; their contents stay out of the plan.
    details: (desired) =>
      (desired.payload as ScriptUpload).modules.map(
        (m) => `module ${m.name}  ${m.contentType}  ${formatBytes(typeof m.content === 'string' ? Buffer.byteLength(m.content) : m.content.byteLength)}`,
      ),
    // States written before uploads became content-only hold hashes of secret texts here.
    sensitive: (path) => path === 'secrets' || path.startsWith('secrets.'),
    outcome: (_action, result) => compact({ remoteId: resultField(result, 'id'), etag: resultField(result, 'etag') }),
    // Only whether the service is there: the account's script list names each service once (its id),
    // whatever its environments, and carries no module, so the content is not compared (no field of
    // the request is read; none is a set). A service missing from the list was deleted outside
    // edgesync, every environment with it: shown as missing, uploaded again only when asked
    // (--recreate-missing), and what follows it (routes, domains) waits.
    observe: { read: 'listScripts', params: (scope) => ({ account_id: scope.account }), idFor: (scope) => scope.service, asRequest: () => ({}) },
  }),
);
