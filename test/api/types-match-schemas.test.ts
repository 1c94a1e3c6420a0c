// The client's request types (src/api/types.ts, read with the TypeScript compiler) against the kinds'
// schemas (schemas/*.schema.json, their `spec`): for each operation whose body a kind's spec describes,
// the same property names, the same optionality and the same primitive types, in both directions and
// into nested objects. Where a kind sends its spec with a difference on purpose, EXCEPTIONS says so,
// with the reason; an exception that no longer matches anything fails too.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName } from '../../src/api/operations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TYPES_FILE = path.join(ROOT, 'src', 'api', 'types.ts');
const SCHEMAS_DIR = path.join(ROOT, 'schemas');

/** The kind schema whose `spec` (or a property of it) is the operation's body. */
interface Source {
  readonly schema: string;
  /** A property of spec that is the body (the AI run's `input`, the KV pairs' `pairs`). */
  readonly property?: string;
}

const COMPARED: Partial<Record<OperationName, Source>> = {
  updateAccessOrganization: { schema: 'access-organization' },
  updateToken: { schema: 'api-token' },
  attachWorkerDomain: { schema: 'worker-domain' },
  createProxyEndpoint: { schema: 'gateway-proxy-endpoint' },
  createList: { schema: 'gateway-list' },
  createLocation: { schema: 'gateway-location' },
  createToken: { schema: 'api-token' },
  updateList: { schema: 'gateway-list' },
  writeKvBulk: { schema: 'kv-pairs', property: 'pairs' },
  updateRoute: { schema: 'worker-route' },
  updateLogging: { schema: 'gateway-logging' },
  createGatewayAccount: { schema: 'gateway-account' },
  runAi: { schema: 'ai-run', property: 'input' },
  editUser: { schema: 'user-profile' },
  updateConnectivitySettings: { schema: 'connectivity-settings' },
  updateLocation: { schema: 'gateway-location' },
  patchProxyEndpoint: { schema: 'gateway-proxy-endpoint' },
  createRoute: { schema: 'worker-route' },
  createAccessOrganization: { schema: 'access-organization' },
};

/** Operations whose body no spec describes field for field. */
const NOT_COMPARED: Partial<Record<OperationName, string>> = {
  putScriptContent: 'multipart: the spec names modules by file or content, the body is parts with content types (test/kinds covers the upload it builds)',
  rollToken: 'its body is always {}: spec.rotate only says when to send it',
  patchList: 'its body is the change of spec.items (`append` the new items, `remove` the dropped values), not a spec: test/kinds covers the pages it builds',
  detachWorkerDomain: 'a DELETE: no body',
  deleteRoute: 'a DELETE: no body',
  deleteList: 'a DELETE: no body',
  deleteLocation: 'a DELETE: no body',
  deleteProxyEndpoint: 'a DELETE: no body',
  deleteToken: 'a DELETE: no body',
  deleteKvBulk: 'its body is the key names prune deletes, from the state, not a spec',
};

type Rule =
  /** The field is in the client's type only: the kind sends it from somewhere else than spec. */
  | 'type only'
  /** The field is in the spec only: this operation does not carry it, or carries it under another name. */
  | 'spec only'
  /** Optional on one side, required on the other. */
  | 'optionality'
  /** The spec takes alternatives; the kind always sends the one the type names. */
  | 'one alternative';

interface Exception {
  readonly op: OperationName;
  readonly path: string;
  readonly rule: Rule;
  /** With 'one alternative': the one the type names, as the test shows it. */
  readonly sends?: string;
  readonly reason: string;
}

/** Every difference the kinds make on purpose between a spec and the request sent. */
const EXCEPTIONS: readonly Exception[] = [
  { op: 'updateToken', path: 'id', rule: 'type only', reason: "the token's id comes from its create's answer or metadata.id, never from spec" },
  { op: 'updateToken', path: 'issued_on', rule: 'type only', reason: 'listed by the reference as optional request fields; the provider sets them and edgesync never sends them' },
  { op: 'updateToken', path: 'modified_on', rule: 'type only', reason: 'listed by the reference as optional request fields; the provider sets them and edgesync never sends them' },
  { op: 'updateToken', path: 'status', rule: 'optionality', reason: 'required by operation 3; a document may leave it out, and the kind then sends active' },
  { op: 'updateToken', path: 'rotate', rule: 'spec only', reason: 'an addition of the document: raising it calls operation 16, it is never in a body' },
  { op: 'updateToken', path: 'rotateEvery', rule: 'spec only', reason: 'an addition of the document: once due it calls operation 16, it is never in a body' },
  { op: 'createToken', path: 'status', rule: 'spec only', reason: 'not part of operation 8: a token starts active, and the next run sends another status by operation 3' },
  { op: 'createToken', path: 'rotate', rule: 'spec only', reason: 'an addition of the document: raising it calls operation 16, it is never in a body' },
  { op: 'createToken', path: 'rotateEvery', rule: 'spec only', reason: 'an addition of the document: once due it calls operation 16, it is never in a body' },
  { op: 'updateList', path: 'type', rule: 'spec only', reason: "not part of operation 9: the provider keeps a list's type, so a change of type is blocked" },
  { op: 'updateList', path: 'items', rule: 'spec only', reason: 'not sent by operation 9: items change by the PATCH (patchList), in pages' },
  {
    op: 'updateLocation',
    path: 'networks[]',
    rule: 'one alternative',
    sends: 'an object {network}',
    reason: 'a document writes a network as a CIDR string or {network}; the kind sends {network} objects, the form the provider takes',
  },
  { op: 'patchProxyEndpoint', path: 'name', rule: 'optionality', reason: 'a PATCH sends only the fields that changed: every field of its body is optional' },
  { op: 'patchProxyEndpoint', path: 'ips', rule: 'optionality', reason: 'a PATCH sends only the fields that changed: every field of its body is optional' },
  {
    op: 'createLocation',
    path: 'networks[]',
    rule: 'one alternative',
    sends: 'an object {network}',
    reason: 'a document writes a network as a CIDR string or {network}; the kind sends {network} objects, the form the provider takes',
  },
  { op: 'createGatewayAccount', path: 'account_id', rule: 'type only', reason: 'sent from the scope, metadata.account; the spec is empty' },
  {
    op: 'updateConnectivitySettings',
    path: 'offramp_tunnel_enabled',
    rule: 'spec only',
    reason: "the reference's stand-in name, which the provider ignores: the kind sends the flag as offramp_warp_enabled",
  },
];

// ---- one description for both sides ----

type Desc =
  | { readonly kind: 'string' | 'number' | 'boolean' | 'null' | 'unknown' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'array'; readonly items: Desc }
  | { readonly kind: 'object'; readonly props: ReadonlyMap<string, Prop>; readonly rest: Desc | 'closed' }
  | { readonly kind: 'union'; readonly members: readonly Desc[] };

interface Prop {
  readonly optional: boolean;
  readonly type: Desc;
}

const unknownDesc: Desc = { kind: 'unknown' };

function show(d: Desc | 'closed'): string {
  if (d === 'closed') return 'no other keys';
  switch (d.kind) {
    case 'enum':
      return `one of ${d.values.join(', ')}`;
    case 'array':
      return `a list of ${show(d.items)}`;
    case 'object':
      return d.props.size === 0 && d.rest !== 'closed' ? `a map of ${show(d.rest)}` : `an object {${[...d.props.keys()].join(', ')}}`;
    case 'union':
      return d.members.map(show).join(' or ');
    default:
      return d.kind;
  }
}

// ---- the client's side: types.ts through the compiler ----

/** The body type of every operation in `OperationTypes` of `typesFile`, described. */
function bodyTypes(typesFile: string): Map<string, Desc> {
  const program = ts.createProgram([typesFile], { strict: true, target: ts.ScriptTarget.ES2022, noEmit: true, types: [], lib: ['lib.es2023.d.ts'] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(typesFile)!;
  const table = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'OperationTypes');
  if (!table) throw new Error(`no interface OperationTypes in ${typesFile}`);
  const bodies = new Map<string, Desc>();
  for (const op of checker.getPropertiesOfType(checker.getTypeAtLocation(table))) {
    const body = checker.getPropertyOfType(checker.getTypeOfSymbol(op), 'body');
    if (body) bodies.set(op.name, describeType(checker, checker.getTypeOfSymbol(body), new Set()));
  }
  return bodies;
}

function describeType(checker: ts.TypeChecker, type: ts.Type, seen: Set<ts.Type>): Desc {
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return unknownDesc;
  if (f & ts.TypeFlags.Null) return { kind: 'null' };
  if (f & ts.TypeFlags.StringLiteral) return { kind: 'enum', values: [(type as ts.StringLiteralType).value] };
  if (f & ts.TypeFlags.String) return { kind: 'string' };
  if (f & ts.TypeFlags.Number) return { kind: 'number' };
  if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { kind: 'boolean' };
  if (type.isUnion()) {
    // `undefined` is how an optional property reads; bytes (Uint8Array) are the KV body already serialized.
    const members = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined) && t.getSymbol()?.name !== 'Uint8Array');
    const described = members.map((t) => describeType(checker, t, seen));
    if (described.length > 0 && described.every((d) => d.kind === 'enum')) {
      return { kind: 'enum', values: described.flatMap((d) => (d as unknown as { values: string[] }).values).sort() };
    }
    if (described.every((d) => d.kind === 'boolean')) return { kind: 'boolean' };
    const merged = described.filter((d, i) => d.kind !== 'boolean' || described.findIndex((e) => e.kind === 'boolean') === i);
    return merged.length === 1 ? merged[0]! : { kind: 'union', members: merged };
  }
  if (checker.isArrayType(type)) {
    return { kind: 'array', items: describeType(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!, seen) };
  }
  if (f & ts.TypeFlags.Object) {
    if (seen.has(type)) return unknownDesc;
    const inner = new Set(seen).add(type);
    const props = new Map<string, Prop>();
    for (const p of checker.getPropertiesOfType(type)) {
      props.set(p.name, { optional: (p.flags & ts.SymbolFlags.Optional) !== 0, type: describeType(checker, checker.getTypeOfSymbol(p), inner) });
    }
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    return { kind: 'object', props, rest: index ? describeType(checker, index.type, inner) : 'closed' };
  }
  return unknownDesc;
}

// ---- the kinds' side: the schema of spec ----

type Schema = Record<string, unknown>;

function describeSchema(schema: Schema | boolean | undefined, root: Schema): Desc {
  if (schema === undefined || schema === true) return unknownDesc;
  if (schema === false) return { kind: 'union', members: [] };
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) {
    const target = schema.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Schema)[key], root) as Schema;
    return describeSchema(target, root);
  }
  if (Array.isArray(schema.enum)) return { kind: 'enum', values: (schema.enum as string[]).map(String).sort() };
  if (schema.const !== undefined) return { kind: 'enum', values: [String(schema.const)] };
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return { kind: 'union', members: alternatives.map((s) => describeSchema(s, root)) };
  const type = schema.type;
  if (Array.isArray(type)) return { kind: 'union', members: type.map((t) => describeSchema({ ...schema, type: t }, root)) };
  switch (type) {
    case 'string':
      return { kind: 'string' };
    case 'number':
    case 'integer':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'null':
      return { kind: 'null' };
    case 'array':
      return { kind: 'array', items: describeSchema(schema.items as Schema | undefined, root) };
    case 'object': {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const props = new Map<string, Prop>();
      for (const [name, sub] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
        props.set(name, { optional: !required.has(name), type: describeSchema(sub, root) });
      }
      const extra = schema.additionalProperties as Schema | boolean | undefined;
      return { kind: 'object', props, rest: extra === false ? 'closed' : describeSchema(extra, root) };
    }
    default:
      return unknownDesc;
  }
}

function specOf(source: Source): Desc {
  const root = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, `${source.schema}.schema.json`), 'utf8')) as Schema;
  const spec = (root.properties as Record<string, Schema>).spec!;
  const at = source.property === undefined ? spec : (spec.properties as Record<string, Schema>)[source.property]!;
  const desc = describeSchema(at, root);
  // A spec that may be null or absent (GatewayAccount) is compared as the object it is otherwise.
  if (desc.kind === 'union') {
    const objects = desc.members.filter((m) => m.kind !== 'null');
    if (objects.length === 1) return objects[0]!;
  }
  return desc;
}

// ---- the comparison ----

interface Found {
  readonly op: OperationName;
  readonly path: string;
  readonly rule: Rule | 'type';
  readonly text: string;
  /** The type's side, as shown. */
  readonly sends: string;
}

function compare(op: OperationName, type: Desc, spec: Desc, at: string, found: Found[]): void {
  const here = at === '' ? '(body)' : at;
  const add = (rule: Found['rule'], text: string, p = here): void => {
    found.push({ op, path: p, rule, text: `${op}: ${p}: ${text}`, sends: show(type) });
  };
  if (type.kind === 'unknown' && spec.kind === 'unknown') return;
  if (spec.kind === 'union' && type.kind !== 'union') {
    // The type sends one of the spec's alternatives: allowed only by an exception.
    const matching = spec.members.filter((m) => differences(op, type, m, at).length === 0);
    if (matching.length === 0) add('type', `the type is ${show(type)}, the spec takes ${show(spec)}`);
    else add('one alternative', `the type is ${show(type)}, one of the spec's alternatives (${show(spec)})`);
    return;
  }
  if (type.kind !== spec.kind) {
    add('type', `the type is ${show(type)}, the spec ${show(spec)}`);
    return;
  }
  switch (type.kind) {
    case 'enum': {
      const values = (spec as typeof type).values;
      if (type.values.join() !== values.join()) add('type', `the type is ${show(type)}, the spec ${show(spec)}`);
      return;
    }
    case 'array':
      compare(op, type.items, (spec as typeof type).items, `${at}[]`, found);
      return;
    case 'union': {
      const members = (spec as typeof type).members;
      const unmatched = type.members.filter((t) => !members.some((s) => differences(op, t, s, at).length === 0));
      if (unmatched.length > 0 || members.length !== type.members.length) add('type', `the type is ${show(type)}, the spec ${show(spec)}`);
      return;
    }
    case 'object': {
      const s = spec as typeof type;
      const join = (name: string): string => (at === '' ? name : `${at}.${name}`);
      for (const [name, prop] of type.props) {
        const other = s.props.get(name);
        if (!other) {
          add('type only', 'in the client type only, not in the spec', join(name));
          continue;
        }
        if (prop.optional !== other.optional) {
          add('optionality', `${prop.optional ? 'optional' : 'required'} in the type, ${other.optional ? 'optional' : 'required'} in the spec`, join(name));
        }
        compare(op, prop.type, other.type, join(name), found);
      }
      for (const name of s.props.keys()) if (!type.props.has(name)) add('spec only', 'in the spec only, not in the client type', join(name));
      if (type.rest === 'closed' || s.rest === 'closed') {
        if (type.rest !== s.rest) add('type', `other keys: the type takes ${show(type.rest)}, the spec ${show(s.rest)}`);
      } else {
        compare(op, type.rest, s.rest, `${at}[*]`, found);
      }
      return;
    }
    default:
      return;
  }
}

function differences(op: OperationName, type: Desc, spec: Desc, at = ''): Found[] {
  const found: Found[] = [];
  compare(op, type, spec, at, found);
  return found;
}

/** Every difference of `typesFile` against the kinds' schemas that no exception explains, and the exceptions left unused. */
function check(typesFile: string): { differences: string[]; unused: Exception[] } {
  const bodies = bodyTypes(typesFile);
  const used = new Set<Exception>();
  const left: string[] = [];
  for (const [op, source] of Object.entries(COMPARED) as [OperationName, Source][]) {
    const body = bodies.get(op);
    if (!body) {
      left.push(`${op}: no body in OperationTypes`);
      continue;
    }
    for (const f of differences(op, body, specOf(source))) {
      const excused = EXCEPTIONS.find((e) => e.op === f.op && e.path === f.path && e.rule === f.rule && (e.sends === undefined || e.sends === f.sends));
      if (excused) used.add(excused);
      else left.push(f.text);
    }
  }
  return { differences: left, unused: EXCEPTIONS.filter((e) => !used.has(e)) };
}

describe("the client's request types match the kinds' schemas", () => {
  it('name every operation once: compared, or said why not', () => {
    const named = [...Object.keys(COMPARED), ...Object.keys(NOT_COMPARED)].sort();
    expect(named).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('in names, optionality and types, but for the exceptions, each of which is still needed', () => {
    const { differences: left, unused } = check(TYPES_FILE);
    expect(left).toEqual([]);
    expect(unused).toEqual([]);
  });

  it('a renamed field, a changed optionality and a changed type in a copy of types.ts are each found', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-types-'));
    const copy = path.join(dir, 'types.ts');
    const text = fs.readFileSync(TYPES_FILE, 'utf8');
    const edits: [string, string][] = [
      ['  readonly zone_id: string;\n}', '  readonly zoneid: string;\n}'],
      ['  readonly pattern: string;\n  readonly script?: string;', '  readonly pattern: string;\n  readonly script: string;'],
      ['  readonly redact_pii?: boolean;', '  readonly redact_pii?: string;'],
    ];
    let changed = text;
    for (const [from, to] of edits) {
      expect(changed.split(from)).toHaveLength(2);
      changed = changed.replace(from, to);
    }
    fs.writeFileSync(copy, changed);
    try {
      expect(check(copy).differences.sort()).toEqual([
        'attachWorkerDomain: zone_id: in the spec only, not in the client type',
        'attachWorkerDomain: zoneid: in the client type only, not in the spec',
        'createRoute: script: required in the type, optional in the spec',
        'updateLogging: redact_pii: the type is string, the spec boolean',
        'updateRoute: script: required in the type, optional in the spec',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
