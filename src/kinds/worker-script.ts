// WorkerScript (operation 1, PUT multipart): module files, content types and upload metadata.
// The canonical request keeps each module's hash, not its content; the payload carries contents.

import { sha256, type Json } from '../util/json.js';
import { compact, isObject } from './diff.js';
import { putKind, resultField } from './families.js';
import type { Built, BuildContext, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';
import { contentTypeOf, isSecretPath, redactMetadata, type ScriptModule, type ScriptUpload } from './worker-modules.js';

export { contentTypeOf, type ScriptModule, type ScriptUpload } from './worker-modules.js';

interface ModuleSpec {
  readonly name: string;
  readonly file?: string;
  readonly content?: string;
}

function build(doc: ResourceDocument, ctx: BuildContext): Built {
  const spec = isObject(doc.spec) ? doc.spec : {};
  const esModules = spec.main_module !== undefined;
  const mainKey = esModules ? 'main_module' : 'body_part';
  const main = spec[mainKey];
  if (spec.main_module === undefined && spec.body_part === undefined) {
    ctx.issue(['spec'], 'expected main_module (ES modules) or body_part (service worker) naming the main module');
  }
  if (spec.main_module !== undefined && spec.body_part !== undefined) {
    ctx.issue(['spec', 'body_part'], 'expected either main_module or body_part, not both');
  }
  const specs = (Array.isArray(spec.modules) ? spec.modules : []) as unknown as ModuleSpec[];
  const modules: ScriptModule[] = [];
  const seen = new Set<string>();
  specs.forEach((module, i) => {
    if (seen.has(module.name)) ctx.issue(['spec', 'modules', i, 'name'], `module ${module.name} is listed twice`);
    seen.add(module.name);
    const content =
      module.file !== undefined ? ctx.readFile(module.file, ['spec', 'modules', i, 'file']) : Buffer.from(module.content ?? '', 'utf8');
    const contentType = contentTypeOf(module.file !== undefined && !/\.\w+$/.test(module.name) ? module.file : module.name, esModules);
    if (content) modules.push({ name: module.name, content, contentType });
  });
  if (typeof main === 'string' && !seen.has(main)) {
    ctx.issue(['spec', mainKey], `expected the main module to be one of the modules (${[...seen].join(', ') || 'none listed'}), got ${main}`);
  }
  const metadata = compact({ ...(isObject(spec.metadata) ? spec.metadata : {}), [mainKey]: main });
  const request: Json = {
    ...redactMetadata(metadata, ctx.secretHash),
    modules: modules.map((m) => ({ name: m.name, content_type: m.contentType, sha256: sha256(m.content) })),
  };
  const payload: ScriptUpload = { metadata, modules };
  return { request, payload };
}

export const workerScript = registerKind(
  putKind({
    kind: 'WorkerScript',
    scopeKeys: ['account', 'service', 'environment'],
    paramMap: { account: 'account_identifier', service: 'service_name', environment: 'environment_name' },
    operation: 'putScriptContent',
    targets: (self) => [{ what: `script ${self.scope.service} (environment ${self.scope.environment}) of account ${self.scope.account}`, at: ['metadata', 'service'] }],
    build,
    body: (desired) => desired.payload,
    sensitive: isSecretPath,
    outcome: (_action, result) => compact({ remoteId: resultField(result, 'id'), etag: resultField(result, 'etag') }),
  }),
);
