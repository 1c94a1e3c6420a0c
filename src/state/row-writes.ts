// Writes of one resource's rows, in the caller's transaction: an answer recorded (its KV keys put,
// its intent closed), an uncertain create resolved, and a resource dropped with its keys and intents.

import type { Json } from '../util/json.js';
import { jsonText, withIdentity, type IntentRow, type ResourceRow } from './rows.js';
import type { KvKeysParams, StoreStatements } from './sql.js';
import { kvKeyCount } from './kv-keys.js';
import { isDeleteIntent, type ResourceIdentity, type SuccessRecord } from './types.js';

/** The resource's row; undefined when it has none. */
export async function rowOf(sql: StoreStatements, key: string): Promise<ResourceRow | undefined> {
  return (await sql.rowByKey.get(key)) as ResourceRow | undefined;
}

/** The answer to a call recorded over `current` (undefined: no row yet); what the record leaves out stays. */
export async function putSuccess(sql: StoreStatements, current: ResourceRow | undefined, id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void> {
  const row = withIdentity(current, id, 'applied');
  const merged: ResourceRow = {
    ...row,
    remote_id: record.remoteId ?? row.remote_id,
    request: record.request === undefined ? row.request : jsonText(record.request),
    hash: record.hash ?? row.hash,
    etag: record.etag ?? row.etag,
    memo: record.memo === undefined ? row.memo : jsonText(record.memo),
    source: record.source === undefined ? row.source : jsonText(record.source as unknown as Json),
    credential: record.credential === undefined ? row.credential : record.credential,
    applied_at: at.toISOString(),
    status: 'applied',
    last_error: null,
  };
  await sql.putRow.run(merged);
  if (record.kvKeys && kvKeyCount(record.kvKeys)) {
    await sql.addKvResource.run(id.key);
    await sql.putKvKeys.run({ resource: id.key, at: Math.floor(at.getTime() / 1000), records: record.kvKeys } satisfies KvKeysParams);
  }
  if (record.intentId !== undefined) await sql.closeIntent.run(record.intentId, id.key);
}

/** The resource, its KV keys and its intents, gone. */
export async function dropResource(sql: StoreStatements, key: string): Promise<void> {
  await sql.deleteRow.run(key);
  await sql.deleteAllKv.run(key);
  await sql.deleteIntents.run(key);
}

const isDelete = (intent: IntentRow | undefined): boolean => intent !== undefined && isDeleteIntent(JSON.parse(intent.request) as Json);

/**
 * An uncertain create settled by a person: with the id it was given (the intent's request becomes
 * the applied one), or to be created again (the row goes back to what it was, or goes when it was new).
 * An uncertain delete: still there under that id (the row stays, as applied), or gone (the row goes,
 * and the next apply creates it again if the config has it).
 */
export async function resolveResource(sql: StoreStatements, key: string, resolution: { id: string } | { recreate: true }, now: Date): Promise<void> {
  const row = await rowOf(sql, key);
  if (!row) throw new Error(`${key} is not in state`);
  const intent = (await sql.intentByResource.get(key)) as IntentRow | undefined;
  if (!intent && row.status !== 'uncertain') {
    throw new Error(`${key} is not uncertain (its status is ${row.status}); only an uncertain create can be resolved`);
  }
  await sql.deleteIntents.run(key);
  if (isDelete(intent)) {
    if (!('id' in resolution)) return dropResource(sql, key);
    const prior = intent!.prior_status;
    await sql.putRow.run({ ...row, remote_id: resolution.id, status: prior && prior !== 'uncertain' ? prior : 'applied', last_error: null });
    return;
  }
  if ('id' in resolution) {
    if (typeof resolution.id !== 'string' || resolution.id === '') throw new Error(`resolving ${key} needs a non-empty id`);
    await sql.putRow.run({
      ...row,
      remote_id: resolution.id,
      request: intent ? intent.request : row.request,
      hash: intent ? intent.request_hash : row.hash,
      applied_at: now.toISOString(),
      status: 'applied',
      last_error: null,
    });
  } else if (row.request === null) {
    await dropResource(sql, key);
  } else {
    const prior = intent?.prior_status;
    await sql.putRow.run({ ...row, status: prior && prior !== 'uncertain' ? prior : 'applied', last_error: null });
  }
}
