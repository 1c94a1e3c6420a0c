// Test helpers for kinds: a BuildContext fake over a temp folder, desired resources built the way
// the loader builds them, and state folded from a plan's records the way the executor writes it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import '../../src/kinds/index.js';
import { createSchemaValidator } from '../../src/config/schema.js';
import {
  identityKey,
  type BuildContext,
  type DesiredResource,
  type FieldPath,
  type Json,
  type KindDecision,
  type KindDefinition,
  type PlanContext,
  type ResourceDocument,
} from '../../src/kinds/kind.js';
import { getKind } from '../../src/kinds/registry.js';
import { ENVIRONMENTS_DIR } from '../../src/config/overlays.js';
import { dependencyGraph } from '../../src/plan/order.js';
import type { AppliedResource } from '../../src/state/types.js';
import { contentHash } from '../../src/util/json.js';

export const ACCOUNT = '0123456789abcdef0123456789abcdef';
export const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
export const schemas = createSchemaValidator();

export function kindOf(name: string): KindDefinition {
  const def = getKind(name);
  if (!def) throw new Error(`kind ${name} is not registered`);
  return def;
}

/**
 * The keys of `others` that `self` follows by its kind's own dependencies, resolved as the planner
 * resolves them (its dependency graph over `self` and `others`), in the order of `others`.
 */
export function followed(self: DesiredResource, others: readonly DesiredResource[]): string[] {
  const all = [self, ...others.filter((o) => o !== self)];
  const problems: string[] = [];
  const deps = dependencyGraph(
    all,
    all.map((d) => kindOf(d.kind)),
    problems,
  );
  if (problems.length) throw new Error(problems.join('\n'));
  return deps[0]!.map((j) => all[j]!.key);
}

export interface Issue {
  readonly path: FieldPath;
  readonly message: string;
}

/** A BuildContext reading files relative to `file`, refusing paths that leave `root`. */
function fakeContext(root: string, file: string): BuildContext & { issues: Issue[] } {
  const issues: Issue[] = [];
  const resolveRef = (ref: string, at: FieldPath): string | undefined => {
    const full = path.resolve(path.dirname(file), ref);
    if (path.relative(root, full).startsWith('..')) {
      issues.push({ path: at, message: `${ref} leaves the config root` });
      return undefined;
    }
    return full;
  };
  return {
    root,
    issues,
    issue: (at, message) => issues.push({ path: at, message }),
    readFile(ref, at) {
      const full = resolveRef(ref, at);
      if (full === undefined) return undefined;
      if (!fs.existsSync(full)) {
        issues.push({ path: at, message: `${ref} does not exist` });
        return undefined;
      }
      return fs.readFileSync(full);
    },
    outputPath(ref, at) {
      const rel = path.relative(root, path.resolve(path.dirname(file), ref));
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        issues.push({ path: at, message: `${ref} leaves the config root` });
        return undefined;
      }
      return rel.split(path.sep).join('/');
    },
    listFiles: (_ref, at) => {
      issues.push({ path: at, message: 'listFiles is not used by these kinds' });
      return undefined;
    },
    streamFile: (_ref, at) => {
      issues.push({ path: at, message: 'streamFile is not used by these kinds' });
      return undefined;
    },
    now: () => Date.UTC(2026, 10, 21, 10, 0, 0),
    // No YAML positions here: every value is placed at the document's start.
    place: () => ({ file, line: 1, col: 1 }),
  };
}

export function tempRoot(files: Record<string, string | Buffer> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-kinds-'));
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

let scratch: string | undefined;
/** One empty root for documents that read no files, made once per test file. */
const scratchRoot = (): string => (scratch ??= tempRoot());

export interface DesireOptions {
  readonly root?: string;
  /** The YAML file, relative to the root. */
  readonly file?: string;
}

/** Builds one document into a DesiredResource, as the loader does; issues are returned alongside. */
export function desire(kind: string, metadata: Record<string, unknown>, spec: unknown, options: DesireOptions = {}) {
  const def = kindOf(kind);
  const root = options.root ?? scratchRoot();
  const file = path.join(root, options.file ?? 'config.yaml');
  const doc: ResourceDocument = {
    apiVersion: 'edgesync/v1',
    kind,
    metadata: metadata as ResourceDocument['metadata'],
    spec,
    file,
    loc: { file, line: 1, col: 1 },
  };
  const ctx = fakeContext(root, file);
  const built = def.build(doc, ctx);
  if (built instanceof Promise) throw new TypeError(`${kind} builds asynchronously: build it through its own helper`);
  const scope: Record<string, string> = {};
  // A scope key the document leaves out (one the kind takes as optional) is not in the scope.
  for (const key of def.scopeKeys) if (metadata[key] !== undefined) scope[key] = String(metadata[key]);
  const name = String(metadata.name);
  const desired: DesiredResource = {
    key: identityKey(kind, scope, name, def.scopeKeys),
    kind,
    name,
    scope,
    ...(typeof metadata.id === 'string' && { id: metadata.id }),
    dependsOn: [],
    request: built.request,
    ...(built.payload !== undefined && { payload: built.payload }),
    hash: contentHash(built.request),
    source: doc.loc,
  };
  return { desired, issues: ctx.issues, built };
}

/** The decision of a kind that plans at once (every kind but KvPairs, whose plan reads the state's keys). */
export function plan(desired: DesiredResource, applied?: AppliedResource): KindDecision {
  const decision = kindOf(desired.kind).plan({ desired, ...(applied && { applied }) });
  if (decision instanceof Promise) throw new TypeError(`${desired.kind} plans asynchronously: await its plan`);
  return decision;
}

/**
 * Applies every action of the decision as the executor would: records merged over the state,
 * outcome ids kept. `results` answers each action by its change.
 */
export function applyDecision(desired: DesiredResource, applied: AppliedResource | undefined, results: Partial<Record<string, unknown>> = {}): AppliedResource {
  const def = kindOf(desired.kind);
  let state: AppliedResource = applied ?? { key: desired.key, kind: desired.kind, name: desired.name, scope: desired.scope, status: 'applied' };
  for (const action of plan(desired, applied).actions) {
    const ctx: PlanContext = { desired, applied: state };
    const outcome = def.outcome(action, results[action.change], ctx);
    // As the executor records it: the outcome's memo over the one the action carries.
    const memo = outcome.memo ?? action.record.memo;
    state = {
      ...state,
      ...(action.record.request !== undefined && { request: action.record.request, hash: action.record.hash }),
      ...(memo !== undefined && { memo }),
      ...(outcome.remoteId !== undefined && { remoteId: outcome.remoteId }),
      ...(outcome.etag !== undefined && { etag: outcome.etag }),
      status: 'applied',
    };
  }
  return state;
}

/** Schema errors of a document as messages "instancePath message". */
/**
 * What `kind`'s read makes of `answer`, an object as the provider answers it: the object in its
 * request's words, with the read (its name and its parameters for `scope`, `id`).
 */
export function observedAs(
  kind: string,
  answer: Record<string, Json>,
  scope: Record<string, string> = {},
  id?: string,
): { read: string; params: Record<string, string>; request: Json } {
  const observe = kindOf(kind).observe;
  if (!observe) throw new Error(`${kind} has no read`);
  const params = { ...observe.params(scope, id) };
  return { read: observe.read, params, request: observe.asRequest ? observe.asRequest(answer, params) : answer };
}

export function schemaErrors(document: unknown): string[] {
  const kind = (document as { kind: string }).kind;
  return schemas.validate(kindOf(kind).schema, document).map((e) => `${e.instancePath} ${e.message}`);
}

/** A valid document of `kind` with the given spec and scope, for rejection tests. */
export function document(kind: string, metadata: Record<string, unknown>, spec?: unknown): Record<string, unknown> {
  return { apiVersion: 'edgesync/v1', kind, metadata, ...(spec !== undefined && { spec }) };
}

/** Every document of the examples, `${NAME:-default}` replaced by its default. */
export function exampleDocuments(): { file: string; doc: Record<string, unknown> }[] {
  const out: { file: string; doc: Record<string, unknown> }[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // Dot-entries are not config, as the loader has it (a CI recipe's .gitlab-ci.yml); nor are the
      // environments' overlays, patches merged over the root only with --env.
      if (entry.name.startsWith('.') || (dir === EXAMPLES && entry.name === ENVIRONMENTS_DIR)) continue;
      if (entry.isDirectory()) walk(full);
      else if (/\.ya?ml$/.test(entry.name)) {
        const text = fs.readFileSync(full, 'utf8').replace(/\$\{\w+:-([^}]*)\}/g, '$1');
        for (const parsed of parseAllDocuments(text)) out.push({ file: full, doc: parsed.toJS() as Record<string, unknown> });
      }
    }
  };
  walk(EXAMPLES);
  return out;
}
