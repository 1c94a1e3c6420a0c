// What `edgesync import` writes, decided purely: an object read from the provider as a document of its
// kind (cut to what the kind's schema accepts, server-set fields left out), named by a slug unique in its kind.

import { stringify } from 'yaml';
import type { Json } from '../util/json.js';

type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** One object read from the provider, in its kind's request words, and where it was read. */
export interface Found {
  readonly kind: string;
  /** Its document's scope: the account or zone it was listed in, and the scope key naming it (a route's `route`). */
  readonly scope: Readonly<Record<string, string>>;
  /** The provider's id of it; undefined for an object of which there is one per scope (settings, the user). */
  readonly id: string | undefined;
  /** The object in the request's words (the kind's `observe.asRequest`), before the schema's cut. */
  readonly request: Json;
  /** The object as listed, for what a kind keeps of it besides the request (a Gateway list's `updated_at` and `count`). */
  readonly listed?: JsonObject;
}

/** A document to write. */
export interface Imported {
  readonly kind: string;
  readonly name: string;
  readonly scope: Readonly<Record<string, string>>;
  readonly id: string | undefined;
  readonly metadata: JsonObject;
  readonly spec: JsonObject;
  /** See Found.listed. */
  readonly listed?: JsonObject;
}

/**
 * Timestamps the provider stamps on an object or its elements (a list item's `created_at`): never the
 * config's to say, left out wherever they are.
 */
const STAMPS = new Set(['created_on', 'modified_on', 'created_at', 'updated_at', 'issued_on', 'last_used_on']);

/** A JSON Schema, as far as the cut reads it. */
export interface Schema {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
}

/**
 * `value` cut to what `schema` accepts: an object keeps the properties the schema names (all of them
 * where it takes any, a KV pair's metadata), each cut by its own schema; a list's elements likewise.
 */
export function cutToSchema(value: Json, schema: Schema | undefined): Json {
  if (!schema) return value;
  if (Array.isArray(value)) return value.map((v) => cutToSchema(v, schema.items));
  if (!isObject(value)) return value;
  const open = schema.properties === undefined || (schema.additionalProperties !== undefined && schema.additionalProperties !== false);
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null || STAMPS.has(key)) continue;
    const property = schema.properties?.[key];
    if (property) out[key] = cutToSchema(v, property);
    else if (open) out[key] = v;
  }
  return out;
}

/** "Blocked domains (EU)" → "blocked-domains-eu": lower case, dashes between words, as metadata.name takes it. */
export function slugOf(text: string): string {
  return (
    text
      .normalize('NFKD')
      // Accents go, their letters stay: "Café" → "cafe".
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9._]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 96)
      .replace(/[^a-z0-9]+$/, '')
  );
}

/** "GatewayList" → "gateway-list": a kind's file name, and the name of an object that names nothing. */
export function kebabOf(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The words an object's name is made of: its name, pattern, hostname or title, else its kind and scope. */
function wordsOf(found: Found): string {
  const request = isObject(found.request) ? found.request : {};
  for (const field of ['name', 'pattern', 'hostname', 'title']) {
    const value = request[field];
    if (typeof value === 'string' && slugOf(value) !== '') return value;
  }
  const where = Object.values(found.scope)[0];
  return where === undefined ? kebabOf(found.kind) : `${kebabOf(found.kind)}-${where.slice(0, 8)}`;
}

/**
 * Names for `found` that no name in `taken` (the kind's names already written) has, each the slug of
 * the object's own name. Two objects of one slug: each after the first (by id) takes the first 8
 * characters of its id after it (`blocked-domains-3f2a9c1e`), and a number after that should it still
 * clash. The same objects in the same folder are named the same on every run.
 */
export function namesOf(found: readonly Found[], taken: ReadonlySet<string>): string[] {
  const used = new Set(taken);
  const slugs = found.map((f) => slugOf(wordsOf(f)) || kebabOf(f.kind));
  const order = found.map((_, i) => i).sort((a, b) => cmp(slugs[a]!, slugs[b]!) || cmp(found[a]!.id ?? '', found[b]!.id ?? ''));
  const names: string[] = [];
  for (const i of order) {
    const slug = slugs[i]!;
    const id = found[i]!.id;
    let name = slug;
    if (used.has(name) && id !== undefined) name = `${slug}-${slugOf(id).slice(0, 8)}`.replace(/-$/, '');
    for (let n = 2; used.has(name); n++) name = `${slug}-${n}`;
    used.add(name);
    names[i] = name;
  }
  return names;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The documents of `found`, named, each cut to its kind's schema; `taken`: names the folder already has, by kind. */
export function documentsOf(found: readonly Found[], schemaOf: (kind: string) => Schema, taken: (kind: string) => ReadonlySet<string>): Imported[] {
  const byKind = new Map<string, Found[]>();
  for (const f of found) {
    const list = byKind.get(f.kind);
    if (list) list.push(f);
    else byKind.set(f.kind, [f]);
  }
  const out: Imported[] = [];
  for (const [kind, all] of byKind) {
    const schema = schemaOf(kind);
    const metadataTakes = schema.properties?.metadata?.properties ?? {};
    const names = namesOf(all, taken(kind));
    all.forEach((f, i) => {
      const id: JsonObject = f.id !== undefined && metadataTakes.id !== undefined && !Object.values(f.scope).includes(f.id) ? { id: f.id } : {};
      const spec = cutToSchema(f.request, schema.properties?.spec);
      out.push({
        kind,
        name: names[i]!,
        scope: f.scope,
        id: f.id,
        metadata: { name: names[i]!, ...f.scope, ...id },
        spec: isObject(spec) ? spec : {},
        ...(f.listed && { listed: f.listed }),
      });
    });
  }
  return out;
}

/** How a kind's objects are told apart in a folder: its scope keys, and whether metadata.id names one (a list's objects; not a singleton's). */
export interface Identity {
  readonly scopeKeys: readonly string[];
  readonly byId: boolean;
}

/** Where an object is in a folder of documents: its kind, scope and id; the same whether written now or read back. */
export function placeOf(kind: string, metadata: Readonly<Record<string, unknown>>, identity: Identity): string {
  const id = identity.byId && typeof metadata.id === 'string' ? metadata.id : '';
  return [kind, ...identity.scopeKeys.map((k) => String(metadata[k] ?? '')), id].join('\0');
}

/** A document's YAML, `comment` (lines) above it. */
export function documentText(doc: Imported, comment?: readonly string[]): string {
  const body = stringify({ apiVersion: 'edgesync/v1', kind: doc.kind, metadata: doc.metadata, spec: doc.spec }, { lineWidth: 0 });
  return (comment ?? []).map((line) => `# ${line}\n`).join('') + body;
}

/** `text` with `documents` appended, each after a `---`: what is there is kept byte for byte. */
export function appended(text: string, documents: readonly string[]): string {
  if (documents.length === 0) return text;
  const head = text === '' ? '' : text.endsWith('\n') ? text : `${text}\n`;
  return head + documents.map((d, i) => (head === '' && i === 0 ? d : `---\n${d}`)).join('');
}
