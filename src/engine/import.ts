// `edgesync import`, wired: what exists read (src/apply/import.ts), written as new documents in the
// folder (src/import/), then loaded as a run loads it and recorded as applied, so a refreshed plan is empty.

import fs from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../api/operations.js';
import { PacedReads, readKind, readKvNamespace, recordImported, type ImportReading, type ImportScopes } from '../apply/import.js';
import type { ConfigError } from '../config/errors.js';
import type { LoadResult } from '../config/index.js';
import { DEFAULT_SCHEMAS_DIR } from '../config/schema.js';
import { documentText, documentsOf, kebabOf, namesOf, placeOf, type Found, type Identity, type Imported, type Schema } from '../import/documents.js';
import { appendDocuments, heldIn } from '../import/folder.js';
import { identityKey, type KindDefinition } from '../kinds/kind.js';
import type { StateStore } from '../state/types.js';
import type { Clock } from '../util/clock.js';

/** What `edgesync import` is asked: where to read, which kinds, and a KV namespace. */
export interface ImportAsk extends ImportScopes {
  /** The kinds to import (`--kinds`). @default every kind import reads */
  readonly kinds?: readonly string[];
  /** `--kv NAMESPACE_ID` (of the one `--account`), and `--keys-only`. @default none: no KV pairs are imported */
  readonly kv?: { readonly namespace: string; readonly keysOnly: boolean };
}

/** What an import did, for the command to say. */
export interface ImportResult {
  /** Documents written, by kind, each with the file it was appended to (relative to the folder). */
  readonly added: readonly { readonly kind: string; readonly name: string; readonly file: string }[];
  /** Objects already in the folder (or in the state) by their id, left as they are: how many of each kind. */
  readonly left: ReadonlyMap<string, number>;
  /** Kinds not imported, and why. */
  readonly notImported: readonly { readonly kind: string; readonly why: string }[];
  /** Kinds the token may not read (401, 403), and what answered so. */
  readonly refused: readonly { readonly kind: string; readonly why: string }[];
  /** Calls made, one per page or object read, KV included. */
  readonly calls: number;
  /** The KV namespace's pairs: how many written, where, and whether a document uses them. */
  readonly kv?: { readonly namespace: string; readonly keys: number; readonly expiring: number; readonly file: string; readonly keysOnly: boolean; readonly left?: boolean };
  /** Resources recorded in the state as applied. */
  readonly recorded: number;
  /** The folder does not load (a document edited by hand): nothing was recorded; every error. */
  readonly refusedConfig?: readonly ConfigError[];
}

/** Kinds import passes over, and why: said in its output. */
const NOT_IMPORTED: Readonly<Record<string, string>> = {
  WorkerScript: "a script's content is code in files of its own, which the list read does not show: write its document and module files by hand",
  AiRun: 'an action, not an object: nothing of it is there to read',
  KvPairs: 'pairs are imported one namespace at a time, with --kv NAMESPACE_ID',
};

/** Kinds that are the config's alone: nothing of them is remote. */
const LOCAL_ONLY = new Set(['Credentials']);

/** What a document of a kind says above itself, in the file. */
const COMMENTS: Readonly<Record<string, readonly string[]>> = {
  ApiToken: [
    "Imported: the provider never shows a token's secret again, so edgesync holds no value for this token.",
    'Raise spec.rotate to roll it: the new secret is written to the secrets folder.',
  ],
};

export interface ImportParts {
  /** The folder written to: the config root. */
  readonly root: string;
  readonly reading: ImportReading;
  readonly store: StateStore;
  /** Loads the folder as a run does. */
  readonly load: () => Promise<LoadResult>;
  readonly kinds: readonly KindDefinition[];
  readonly clock: Clock;
}

const isList = (def: KindDefinition): boolean => def.observe !== undefined && ROUTES[def.observe.read].paging !== undefined;
const identityOf = (def: KindDefinition): Identity => ({ scopeKeys: def.scopeKeys, byId: isList(def) });

function schemaOf(def: KindDefinition): Schema {
  return JSON.parse(fs.readFileSync(path.join(DEFAULT_SCHEMAS_DIR, def.schema), 'utf8')) as Schema;
}

/** Reads what exists, appends what is new to the folder, and records it as applied. */
export async function importInto(ask: ImportAsk, parts: ImportParts): Promise<ImportResult> {
  const byKind = new Map(parts.kinds.map((d) => [d.kind, d]));
  const wanted = (ask.kinds ?? parts.kinds.map((d) => d.kind)).filter((k) => !LOCAL_ONLY.has(k));
  const notImported: { kind: string; why: string }[] = [];
  const reading: KindDefinition[] = [];
  for (const kind of [...wanted].sort()) {
    const def = byKind.get(kind)!;
    const why = kind === 'KvPairs' && ask.kv ? undefined : (NOT_IMPORTED[kind] ?? (def.observe ? undefined : 'edgesync has no read of its objects yet'));
    if (why !== undefined) notImported.push({ kind, why });
    else if (kind !== 'KvPairs') reading.push(def);
  }
  const reads = new PacedReads(parts.reading);
  const refused: { kind: string; why: string }[] = [];
  const found: Found[] = [];
  for (const def of reading) {
    const read = await readKind(def, ask, reads);
    if (read.refused) refused.push({ kind: def.kind, why: read.refused });
    if (read.skipped) notImported.push({ kind: def.kind, why: read.skipped });
    found.push(...read.found);
  }

  // What the folder and the state already hold is left as it is: new objects only, by id.
  const held = heldIn(parts.root, (kind) => {
    const def = byKind.get(kind);
    return def && identityOf(def);
  });
  const snapshot = await parts.store.snapshot();
  const knownIds = new Set([...snapshot.resources.values()].filter((r) => r.remoteId !== undefined).map((r) => `${r.kind}\0${r.remoteId}`));
  const schemas = new Map<string, Schema>();
  const schemaFor = (kind: string): Schema => schemas.get(kind) ?? schemas.set(kind, schemaOf(byKind.get(kind)!)).get(kind)!;
  const left = new Map<string, number>();
  const fresh = found.filter((f) => {
    const place = placeOf(f.kind, { ...f.scope, ...(f.id !== undefined && { id: f.id }) }, identityOf(byKind.get(f.kind)!));
    const isHeld = held.places.has(place) || (f.id !== undefined && knownIds.has(`${f.kind}\0${f.id}`));
    if (isHeld) left.set(f.kind, (left.get(f.kind) ?? 0) + 1);
    return !isHeld;
  });
  const docs = documentsOf(fresh, schemaFor, (kind) => held.names.get(kind) ?? new Set());
  const added: { kind: string; name: string; file: string }[] = [];
  const written = new Map<string, Imported[]>();
  for (const doc of docs) {
    const list = written.get(doc.kind);
    if (list) list.push(doc);
    else written.set(doc.kind, [doc]);
  }
  for (const [kind, list] of written) {
    const file = `${kebabOf(kind)}.yaml`;
    appendDocuments(
      path.join(parts.root, file),
      list.map((d) => documentText(d, COMMENTS[kind])),
    );
    for (const d of list) added.push({ kind, name: d.name, file });
  }

  const kv = ask.kv && (await importKv(ask, ask.kv, parts, reads, held, refused, added));
  const recorded: Imported[] = [...docs, ...(kv?.doc ? [kv.doc] : [])];
  const base = { added, left, notImported, refused, ...(kv && { kv: kv.said }) };
  if (recorded.length === 0) return { ...base, calls: reads.calls, recorded: 0 };

  // The folder as a run loads it: the documents written are recorded as an apply of them would be.
  const loaded = await parts.load();
  if (!loaded.ok) return { ...base, calls: reads.calls, recorded: 0, refusedConfig: loaded.errors };
  const resources = new Map(loaded.resources.map((r) => [r.key, r]));
  const toRecord = recorded.flatMap((doc) => {
    const def = byKind.get(doc.kind)!;
    const resource = resources.get(identityKey(doc.kind, doc.scope, doc.name, def.scopeKeys));
    return resource ? [{ resource, def, remoteId: doc.id, ...(doc.listed && { listed: doc.listed }) }] : [];
  });
  const count = await recordImported(toRecord, parts.store, new Date(parts.clock.now()));
  return { ...base, calls: reads.calls, recorded: count };
}

/** The namespace's pairs to a JSON Lines file and a KvPairs document using it (none with --keys-only: its pairs have no values). */
async function importKv(
  ask: ImportAsk,
  kv: NonNullable<ImportAsk['kv']>,
  parts: ImportParts,
  reads: PacedReads,
  held: ReturnType<typeof heldIn>,
  refused: { kind: string; why: string }[],
  added: { kind: string; name: string; file: string }[],
): Promise<{ said: NonNullable<ImportResult['kv']>; doc?: Imported } | undefined> {
  const account = ask.accounts[0]!;
  const scope = { account, namespace: kv.namespace };
  const source = `kv/${kv.namespace}${kv.keysOnly ? '.keys' : ''}.jsonl`;
  const said = { namespace: kv.namespace, file: source, keysOnly: kv.keysOnly };
  // A namespace the folder has a document for, or a keys file already written (a person may be filling in its values), is left.
  const there = kv.keysOnly ? fs.existsSync(path.join(parts.root, source)) : held.places.has(placeOf('KvPairs', scope, { scopeKeys: ['account', 'namespace'], byId: false }));
  if (there) {
    return { said: { ...said, keys: 0, expiring: 0, left: true } };
  }
  fs.mkdirSync(path.join(parts.root, 'kv'), { recursive: true });
  const read = await readKvNamespace(scope, path.join(parts.root, source), kv.keysOnly, reads, parts.clock.now());
  if (read.refused) {
    refused.push({ kind: 'KvPairs', why: read.refused });
    fs.rmSync(path.join(parts.root, source), { force: true });
    return undefined;
  }
  if (kv.keysOnly) return { said: { ...said, keys: read.keys, expiring: read.expiring } };
  const [name] = namesOf([{ kind: 'KvPairs', scope, id: kv.namespace, request: { name: `namespace-${kv.namespace.slice(0, 12)}` } }], held.names.get('KvPairs') ?? new Set());
  const doc: Imported = { kind: 'KvPairs', name: name!, scope, id: undefined, metadata: { name: name!, ...scope }, spec: { sources: [{ jsonl: source }] } };
  appendDocuments(path.join(parts.root, 'kv-pairs.yaml'), [documentText(doc)]);
  added.push({ kind: 'KvPairs', name: doc.name, file: 'kv-pairs.yaml' });
  return { said: { ...said, keys: read.keys, expiring: read.expiring }, doc };
}
