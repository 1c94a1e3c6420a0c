// What `edgesync state` and the state's export and import ask of a store beyond a run's StateStore:
// both backends' store gives it, so no command needs the concrete class.

import type { ResourceView } from './render.js';
import type { StoreStatements } from './sql.js';
import type { AppliedResource, Intent, StateStore } from './types.js';

/** What `forget` dropped. */
export interface Forgotten {
  readonly resource: AppliedResource;
  readonly kvKeys: number;
  readonly intent?: Intent;
}

export interface StateAdmin extends StateStore {
  /** Throws when this store may no longer be written (its file replaced, its lock lost). */
  verify(): void;
  /** The open intent of a resource, if any. */
  intent(key: string): Promise<Intent | undefined>;
  /** Each resource with its KV key count and open intent, in key order. */
  views(): Promise<ResourceView[]>;
  view(key: string): Promise<ResourceView | undefined>;
  kvKeyCounts(): Promise<Map<string, number>>;
  /** Of `keys`, those the resource has no hash for. */
  missingKvKeys(resource: string, keys: readonly string[]): Promise<string[]>;
  forget(key: string): Promise<Forgotten>;
  /** Returns the keys that were there and are now dropped. */
  forgetKvKeys(resource: string, keys: readonly string[]): Promise<string[]>;
  recordRun(run: Parameters<NonNullable<StateStore['recordRun']>>[0]): Promise<void>;
  runs(limit?: number): ReturnType<NonNullable<StateStore['runs']>>;
  /**
   * `fn` over the store's statements in one transaction, for the state's export and import
   * (src/state/transfer/): a read sees one consistent state; a write is fenced and counted as one.
   */
  withStatements<T>(mode: 'read' | 'write', fn: (sql: StoreStatements) => Promise<T>): Promise<T>;
}
