// Pruning a namespace's keys: the stored keys a document dropped, deleted by the bulk delete in
// chunks of at most 10,000 keys, each chunk taking exactly its keys out of the state when it succeeds.

import type { ActionDraft, Json } from '../kind.js';
import { plural } from '../../util/format.js';

/** Keys one bulk delete takes at most: the provider refuses more. */
export const KV_DELETE_KEYS = 10_000;

/** Keys gathered in batches of KV_DELETE_KEYS, in the order they come (UTF-8 byte order in a plan). */
export class KeyBatches {
  readonly batches: string[][] = [];
  count = 0;

  constructor(private readonly size = KV_DELETE_KEYS) {}

  add(key: string): void {
    const last = this.batches.at(-1);
    if (last && last.length < this.size) last.push(key);
    else this.batches.push([key]);
    this.count++;
  }
}

/** The record a resource's last action leaves: its request and hash, or the whole resource out of the state. */
export type Seal = { readonly request: Json; readonly hash: string } | 'resource';

/**
 * One `delete` action per batch (body: the key names), `deleteKvBulk` in the namespace `params`. `seal`:
 * what the last one also records, once every other action of the resource succeeded (afterSiblings):
 * the resource's request and hash, or, for a document no longer in the config, the resource leaving the state.
 */
export function deleteChunks(batches: readonly (readonly string[])[], params: Readonly<Record<string, string>>, seal?: Seal): ActionDraft[] {
  return batches.map((keys, n): ActionDraft => {
    const last = n === batches.length - 1;
    const sealing = last && seal !== undefined;
    const record: ActionDraft['record'] = !sealing
      ? { removed: { keys } }
      : seal === 'resource'
        ? { removed: { resource: true } }
        : { request: seal.request, hash: seal.hash, removed: { keys } };
    return {
      change: 'delete',
      operation: 'deleteKvBulk',
      params,
      body: keys,
      diff: [],
      suffix: `${n + 1}/${batches.length}`,
      summary: plural(keys.length, 'key'),
      ...(sealing && batches.length > 1 && { afterSiblings: true }),
      record,
    };
  });
}
