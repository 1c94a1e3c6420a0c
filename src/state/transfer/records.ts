// A state as the export's records and back, over the store's statements in either dialect, so
// export, import and migrate read and write the state one way. Each runs in its caller's transaction.

import { formatCount, plural } from '../../util/format.js';
import type { IntentRow, ResourceRow } from '../rows.js';
import type { KvKeysParams, StoreStatements } from '../sql.js';
import { intentRecord, intentRow, resourceRecord, resourceRow, type KvKey, type StateRecord } from './format.js';

/** What a state holds, as the transfer counts it. */
export interface Counts {
  readonly resources: number;
  readonly intents: number;
  readonly kvKeys: number;
  /** KV keys per resource that has any, in key order. */
  readonly kvKeysOf: ReadonlyMap<string, number>;
}

/** What was read, and how many requests lost hashes of secret texts on the way. */
export interface Tally extends Counts {
  readonly redacted: number;
}

/** Counts as a reader or writer goes: `add` per record, `counts()` at the end. */
export class Counter {
  resources = 0;
  intents = 0;
  redacted = 0;
  private readonly kv = new Map<string, number>();

  add(record: StateRecord): void {
    if (record.type === 'resource') this.resources++;
    else if (record.type === 'intent') this.intents++;
    else if (record.type === 'kv_keys' && record.keys.length) this.kv.set(record.resource, (this.kv.get(record.resource) ?? 0) + record.keys.length);
  }

  tally(): Tally {
    const kvKeysOf = new Map([...this.kv].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { resources: this.resources, intents: this.intents, kvKeys: sum(kvKeysOf), kvKeysOf, redacted: this.redacted };
  }
}

const sum = (m: ReadonlyMap<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

export async function readRevision(sql: StoreStatements): Promise<{ lineage: string; serial: number } | null> {
  const row = (await sql.revision.get()) as [string | null, number | string | null] | undefined;
  return row && row[0] !== null ? { lineage: row[0], serial: Number(row[1] ?? 0) } : null;
}

/**
 * Every resource (key order), every intent (the order they began), each KV resource's keys in
 * pages of `kvKeysPerRecord` (key order), then the end record with the totals. Only one page of
 * keys is held at a time.
 */
export async function* readRecords(sql: StoreStatements, kvKeysPerRecord: number, counter: Counter): AsyncGenerator<StateRecord> {
  const emit = (record: StateRecord, redacted = false): StateRecord => {
    counter.add(record);
    if (redacted) counter.redacted++;
    return record;
  };
  for (const row of (await sql.allRows.all()) as ResourceRow[]) {
    const { record, redacted } = resourceRecord(row);
    yield emit(record, redacted);
  }
  for (const row of (await sql.allIntents.all()) as IntentRow[]) {
    const { record, redacted } = intentRecord(row);
    yield emit(record, redacted);
  }
  const withKeys = ((await sql.kvCounts.all()) as [string, number][]).map(([resource]) => resource).sort();
  for (const resource of withKeys) {
    let page = JSON.parse((await sql.kvRecordsFirst.get(resource, kvKeysPerRecord)) as string) as KvKey[];
    while (page.length) {
      yield emit({ type: 'kv_keys', resource, keys: page });
      if (page.length < kvKeysPerRecord) break;
      page = JSON.parse((await sql.kvRecordsNext.get(resource, page[page.length - 1]![0], kvKeysPerRecord)) as string) as KvKey[];
    }
  }
  const t = counter.tally();
  yield { type: 'end', resources: t.resources, intents: t.intents, kv_keys: t.kvKeys };
}

/** What the state holds now, read through its statements. */
export async function countsOf(sql: StoreStatements): Promise<Counts> {
  const kvKeysOf = new Map(((await sql.kvCounts.all()) as [string, number][]).map(([r, n]) => [r, Number(n)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { resources: (await sql.allRows.all()).length, intents: (await sql.allIntents.all()).length, kvKeys: sum(kvKeysOf), kvKeysOf };
}

/** A state that holds anything is refused: a transfer never merges into, or overwrites, another state. */
class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

/** "14 resources", with intents and KV keys when there are any. */
export function describeCounts(c: Counts): string {
  const parts = [plural(c.resources, 'resource'), c.intents && plural(c.intents, 'intent'), c.kvKeys && `${formatCount(c.kvKeys)} KV keys`];
  return parts.filter(Boolean).join(', ');
}

export async function checkEmpty(sql: StoreStatements, shown: string, verb: 'import' | 'migrate'): Promise<void> {
  const held = await countsOf(sql);
  if (held.resources || held.intents || held.kvKeys) {
    throw new TargetNotEmptyError(`${shown} already holds ${describeCounts(held)}: ${verb} only into an empty state; export it first if it matters`);
  }
}

/** Writes records into a state checked empty in the same transaction. */
export async function writeRecord(sql: StoreStatements, record: StateRecord): Promise<void> {
  if (record.type === 'resource') await sql.putRow.run(resourceRow(record));
  else if (record.type === 'intent') {
    const { lastInsertRowid } = await sql.addIntent.run(intentRow(record));
    if (record.error !== undefined) await sql.failIntent.run(record.error, Number(lastInsertRowid));
  } else if (record.type === 'kv_keys' && record.keys.length) {
    // Recorded expiries are absolute: no ttl, so the write's time (`at`) plays no part.
    await sql.addKvResource.run(record.resource);
    await sql.putKvKeys.run({ resource: record.resource, at: 0, records: record.keys } satisfies KvKeysParams);
  }
}

/** The first difference between what was meant to be written and what the state holds, or undefined; `source` says the meant count ("the file lists 2"). */
export function countsDiffer(meant: Counts, held: Counts, source: (n: string) => string = (n) => `${n} were copied`): string | undefined {
  if (meant.resources !== held.resources) return `${formatCount(held.resources)} resources where ${source(formatCount(meant.resources))}`;
  if (meant.intents !== held.intents) return `${formatCount(held.intents)} intents where ${source(formatCount(meant.intents))}`;
  for (const resource of new Set([...meant.kvKeysOf.keys(), ...held.kvKeysOf.keys()])) {
    const [a, b] = [meant.kvKeysOf.get(resource) ?? 0, held.kvKeysOf.get(resource) ?? 0];
    if (a !== b) return `${formatCount(b)} KV keys of ${resource} where ${source(formatCount(a))} (a key listed twice?)`;
  }
  return undefined;
}
