// An in-memory StateStore for the executor's tests: behaves like the real one for what apply uses,
// and keeps a journal of every call (with its arguments) so tests can check order and content.

import type { AppliedResource, Intent, Removed, ResourceIdentity, ResourceStatus, StateSnapshot, StateStore, SuccessRecord } from '../../src/state/types.js';
import { kvKeyRecords } from '../../src/state/kv-keys.js';
import type { Json } from '../../src/util/json.js';

export interface JournalEntry {
  readonly call: string;
  readonly key?: string;
  readonly intentId?: number;
  readonly args: unknown[];
}

interface StoredIntent extends Intent {
  state: 'open' | 'uncertain' | 'closed' | 'abandoned';
}

export class FakeState implements StateStore {
  readonly resources = new Map<string, AppliedResource>();
  readonly intents = new Map<number, StoredIntent>();
  readonly kv = new Map<string, Map<string, string>>();
  readonly journal: JournalEntry[] = [];
  /** Set to make the next write of this kind throw. */
  failNext?: 'recordSuccess' | 'beginIntent';
  private nextIntent = 1;

  constructor(private readonly onCall?: (entry: JournalEntry) => void) {}

  private log(entry: JournalEntry): void {
    this.journal.push(entry);
    this.onCall?.(entry);
    if (this.failNext === entry.call) {
      this.failNext = undefined;
      throw new Error(`disk I/O error in ${entry.call}`);
    }
  }

  async snapshot(): Promise<StateSnapshot> {
    const open = [...this.intents.values()].filter((i) => i.state === 'open' || i.state === 'uncertain');
    return {
      resources: new Map(this.resources),
      intents: new Map(open.map((i) => [i.resource, i])),
      kvKeys: async (resource) => new Map(this.kv.get(resource) ?? []),
      kvKeyCount: async (resource) => this.kv.get(resource)?.size ?? 0,
      kvExpired: async () => [],
    };
  }

  async get(key: string): Promise<AppliedResource | undefined> {
    return this.resources.get(key);
  }

  async list(): Promise<AppliedResource[]> {
    return [...this.resources.values()];
  }

  async recordSuccess(id: ResourceIdentity, record: SuccessRecord, at: Date): Promise<void> {
    this.log({ call: 'recordSuccess', key: id.key, ...(record.intentId !== undefined && { intentId: record.intentId }), args: [id, record, at] });
    const { kvKeys, intentId, ...fields } = record;
    const before = this.resources.get(id.key);
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    this.resources.set(id.key, { ...before, ...id, ...defined, appliedAt: at.toISOString(), status: 'applied', lastError: undefined });
    if (kvKeys) {
      const keys = this.kv.get(id.key) ?? new Map<string, string>();
      for (const [k, h] of kvKeyRecords(kvKeys)) keys.set(k, h);
      this.kv.set(id.key, keys);
    }
    if (intentId !== undefined) this.intent(intentId).state = 'closed';
  }

  async recordFailure(id: ResourceIdentity, error: string, at: Date): Promise<void> {
    this.log({ call: 'recordFailure', key: id.key, args: [id, error, at] });
    const before = this.resources.get(id.key);
    this.resources.set(id.key, { ...before, ...id, status: 'failed', lastError: error });
  }

  async recordStatus(id: ResourceIdentity, status: ResourceStatus, note?: string): Promise<void> {
    this.log({ call: 'recordStatus', key: id.key, args: [id, status, note] });
    const { lastError: _, ...before } = this.resources.get(id.key) ?? ({} as Partial<AppliedResource>);
    this.resources.set(id.key, { ...before, ...id, status, ...(note !== undefined && { lastError: note }) } as AppliedResource);
  }

  async beginIntent(id: ResourceIdentity, operation: string, request: Json, requestHash: string, at: Date, resume?: true): Promise<number> {
    const open = [...this.intents.values()].find((i) => i.resource === id.key && (i.state === 'open' || i.state === 'uncertain'));
    if (open && resume && open.operation === operation) {
      this.log({ call: 'beginIntent', key: id.key, intentId: open.id, args: [id, operation, request, requestHash, at] });
      open.state = 'open';
      return open.id;
    }
    const intentId = this.nextIntent++;
    this.log({ call: 'beginIntent', key: id.key, intentId, args: [id, operation, request, requestHash, at] });
    this.intents.set(intentId, { id: intentId, resource: id.key, operation, request, requestHash, startedAt: at.toISOString(), state: 'open' });
    return intentId;
  }

  async abandonIntent(intentId: number): Promise<void> {
    this.log({ call: 'abandonIntent', intentId, args: [intentId] });
    this.intent(intentId).state = 'abandoned';
  }

  async markUncertain(intentId: number, error: string): Promise<void> {
    this.log({ call: 'markUncertain', intentId, args: [intentId, error] });
    const intent = this.intent(intentId);
    this.intents.set(intentId, { ...intent, error, state: 'uncertain' });
  }

  async recordRemoval(id: ResourceIdentity, removed: Removed, intentId?: number): Promise<void> {
    this.log({ call: 'recordRemoval', key: id.key, ...(intentId !== undefined && { intentId }), args: [id, removed, intentId] });
    if (intentId !== undefined) this.intent(intentId).state = 'closed';
    if ('resource' in removed) {
      this.resources.delete(id.key);
      this.kv.delete(id.key);
      for (const intent of this.intents.values()) if (intent.resource === id.key) intent.state = 'closed';
    } else for (const key of removed.keys) this.kv.get(id.key)?.delete(key);
  }

  async recordProtection(key: string, protect: boolean): Promise<void> {
    this.log({ call: 'recordProtection', key, args: [key, protect] });
    const before = this.resources.get(key);
    if (before) this.resources.set(key, { ...before, protected: protect || undefined });
  }

  async resolve(key: string, resolution: { id: string } | { recreate: true }): Promise<void> {
    this.log({ call: 'resolve', key, args: [key, resolution] });
  }

  async forget(key: string): Promise<void> {
    this.log({ call: 'forget', key, args: [key] });
    this.resources.delete(key);
  }

  async forgetKvKeys(resource: string, keys: readonly string[]): Promise<void> {
    this.log({ call: 'forgetKvKeys', key: resource, args: [resource, keys] });
  }

  async close(): Promise<void> {}

  private intent(id: number): StoredIntent {
    const intent = this.intents.get(id);
    if (!intent) throw new Error(`no intent ${id}`);
    if (intent.state !== 'open') throw new Error(`intent ${id} is already ${intent.state}`);
    return intent;
  }

  /** Journal entries of one call name. */
  calls(name: string): JournalEntry[] {
    return this.journal.filter((e) => e.call === name);
  }
}
