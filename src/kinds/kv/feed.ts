// A KV sync's chunk bodies, made at apply by reading the sources again in order: only the changed
// pairs are kept, each checked against the plan, and only a few chunks are read ahead of the sends.

import { setImmediate as turn } from 'node:timers/promises';
import type { DeferredBody } from '../kind.js';
import type { KvKeyRecord } from '../../state/types.js';
import { hashTag, type KvPayload } from './model.js';
import type { SourceItem } from './origins.js';
import { preparePair, type WirePair } from './pair.js';

/** A chunk: the changed pairs at seqs[start..end), and its bytes as sent. */
export interface ChunkSpan {
  readonly start: number;
  readonly end: number;
  readonly bytes: number;
}

/** Chunks read but not yet settled, at most: the reading stays this far ahead of the sends. @default 8 */
const READ_AHEAD = 8;
/** Items read between turns of the event loop, so that sends go on while a file is read. */
const ITEMS_PER_TURN = 2000;

interface Made {
  readonly body: WirePair[];
  readonly kvKeys: KvKeyRecord[];
}

/** What state keeps of a pair: its hash, and its expiry as sent (the ttl counts from the write). */
export function recordOf(pair: WirePair, hash: string): KvKeyRecord {
  if (pair.expiration_ttl !== undefined) return [pair.key, hash, null, pair.expiration_ttl];
  return pair.expiration !== undefined ? [pair.key, hash, pair.expiration] : [pair.key, hash];
}

/** The first index of sorted `a` whose value is at least `v`. */
function lowerBound(a: Uint32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Reads the payload's items in seq order, one at a time; items not in `seqs` are passed over unparsed. */
class ItemCursor {
  private span = 0;
  private items: Generator<SourceItem> | undefined;
  /** The seq of the next item the cursor gives. */
  seq = 0;

  constructor(private readonly payload: KvPayload, private readonly seqs: Uint32Array) {}

  /** Whether the reader may pass over item `index` of `span` (asked in index order, ahead of the cursor). */
  private skipper(first: number): (index: number) => boolean {
    const { seqs } = this;
    let q = lowerBound(seqs, first);
    return (index) => {
      const seq = first + index;
      while (q < seqs.length && seqs[q] < seq) q++;
      return seqs[q] !== seq;
    };
  }

  /** Closes the file being read, if any. */
  close(): void {
    this.items?.return(undefined);
    this.items = undefined;
  }

  /** The item at `seq` (not before the cursor), reading past the ones before it. */
  at(seq: number): { item: SourceItem; label: string } {
    const { spans } = this.payload;
    for (;;) {
      const span = spans[this.span];
      if (!span) throw new Error(`the sources have fewer pairs than the plan read (no pair ${seq})`);
      if (seq >= span.first + span.count) {
        this.span++;
        this.close();
        continue;
      }
      this.items ??= span.origin.items(this.skipper(span.first));
      const next = this.items.next();
      if (next.done) throw new Error(`${span.origin.name} has fewer pairs than when the plan read it`);
      this.seq = span.first + next.value.index + 1;
      if (this.seq - 1 === seq) return { item: next.value, label: span.origin.label(next.value) };
    }
  }
}

/**
 * The deferred bodies of `chunks`, in order: the first taken starts the reading. A file changed
 * since the plan (its size, time or inode), or a pair whose hash is not the plan's, stops the
 * reading: that chunk and every later one are not sent.
 */
export function deferredChunks(payload: KvPayload, seqs: Uint32Array, chunks: readonly ChunkSpan[]): DeferredBody[] {
  const made = new Map<number, Made>();
  const waiting = new Map<number, { resolve: (m: Made) => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  let started = false;
  let next = 0;
  // Chunks read and not settled yet: the read-ahead.
  const unsettled = new Set<number>();
  let reading = false;
  const cursor = new ItemCursor(payload, seqs);
  let ptr = 0;

  const fail = (err: Error) => {
    failure = err;
    cursor.close();
    for (const [, w] of waiting) w.reject(err);
    waiting.clear();
  };

  const produce = async (n: number): Promise<Made> => {
    const body: WirePair[] = [];
    const kvKeys: KvKeyRecord[] = [];
    let read = 0;
    for (; ptr < chunks[n].end; ptr++) {
      const seq = seqs[ptr];
      read += seq - cursor.seq + 1;
      const { item, label } = cursor.at(seq);
      let why: string | undefined;
      const prepared = preparePair(item.value, (field, message) => void (why ??= `${field ? `${field}: ` : ''}${message}`));
      if (!prepared) throw new Error(`${label} is no longer a valid pair (${why}): the source changed since the plan`);
      if (hashTag(prepared.hash) !== payload.tags.get(seq)) throw new Error(`${label} is not the pair the plan read: the source changed since the plan`);
      body.push(prepared.pair);
      kvKeys.push(recordOf(prepared.pair, prepared.hash));
      if (read >= ITEMS_PER_TURN) {
        read = 0;
        await turn();
      }
    }
    return { body, kvKeys };
  };

  const pump = async () => {
    if (reading) return;
    reading = true;
    try {
      while (!failure && next < chunks.length && unsettled.size < READ_AHEAD) {
        const n = next++;
        const m = await produce(n);
        unsettled.add(n);
        const w = waiting.get(n);
        waiting.delete(n);
        if (w) w.resolve(m);
        else made.set(n, m);
        if (next === chunks.length) cursor.close();
        await turn();
      }
    } catch (err) {
      fail(err instanceof Error ? err : new Error(String(err)));
    } finally {
      reading = false;
    }
  };

  const start = () => {
    if (started) return;
    started = true;
    const changed = payload.spans.map((s) => s.origin.changed()).find((c) => c !== undefined);
    if (changed) fail(new Error(`${changed}: nothing of it is sent; plan again`));
  };

  const taken = new Set<number>();
  return chunks.map((_, n): DeferredBody => ({
    deferred: true,
    take(signal) {
      // The files are read once, forward: a chunk is made once.
      if (taken.has(n)) return Promise.reject(new Error(`chunk ${n + 1} of this plan was taken already: plan again`));
      taken.add(n);
      start();
      if (failure) return Promise.reject(failure);
      const ready = made.get(n);
      if (ready) {
        made.delete(n);
        return Promise.resolve(ready);
      }
      const promise = new Promise<Made>((resolve, reject) => {
        // Removed once settled: a listener left on the run's signal would keep the chunk's pairs alive.
        const onAbort = () => {
          if (waiting.delete(n)) reject(new Error('stopped'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const settle = () => signal?.removeEventListener('abort', onAbort);
        waiting.set(n, {
          resolve: (m) => (settle(), resolve(m)),
          reject: (e) => (settle(), reject(e)),
        });
      });
      void pump();
      return promise;
    },
    done() {
      unsettled.delete(n);
      made.delete(n);
      void pump();
    },
  }));
}
