// A KV sync's chunk bodies, made at apply by reading the sources again in order: only the changed
// pairs are kept, each checked against the plan, and only a few chunks are read ahead of the sends.

import { setImmediate as turn } from 'node:timers/promises';
import type { DeferredBody } from '../kind.js';
import { kvKeyRecords } from '../../state/kv-keys.js';
import type { KvKeyColumns, KvKeyRecord, KvKeys } from '../../state/types.js';
import { BodyPool } from './body-pool.js';
import { chunkBody, type KvChunkBytes } from './chunk-bytes.js';
import type { KvPayload, OriginSpan } from './model.js';
import { piecesOf, type PieceSource } from './piece-source.js';
import { lowerBound, PieceProblem, type Piece } from './pieces.js';

/** A chunk: the changed pairs at seqs[start..end), and its bytes as sent. */
export interface ChunkSpan {
  readonly start: number;
  readonly end: number;
  readonly bytes: number;
}

/** Chunks read but not yet settled, at most: the reading stays this far ahead of the sends. @default 8 */
const READ_AHEAD = 8;

interface Made {
  readonly body: KvChunkBytes;
  readonly kvKeys: KvKeys;
}

/** What state records of a chunk's pieces: columns as they were made, records when some pair has an expiry. */
function keysOf(pieces: readonly Piece[]): KvKeys {
  const made = pieces.filter((p) => p.count > 0);
  if (made.some((p) => p.expiring.length > 0)) {
    const records: KvKeyRecord[] = [];
    for (const piece of made) recordsOf(piece, records);
    return records;
  }
  return columnsOf(made);
}

/** The pieces' keys as columns: their keys joined, their hashes one after the other (a chunk of one piece: its own). */
function columnsOf(pieces: readonly Piece[]): KvKeyColumns {
  const count = pieces.reduce((n, p) => n + p.count, 0);
  if (pieces.length === 1) return { columns: true, count, keys: pieces[0].keys, hashes: pieces[0].hashes };
  const newline = Buffer.from('\n');
  const keys = Buffer.concat(pieces.flatMap((p, i) => (i ? [newline, p.keys] : [p.keys])));
  return { columns: true, count, keys, hashes: Buffer.concat(pieces.map((p) => p.hashes)) };
}

/** The records of a piece's pairs, in order: what state keeps of each, its hash and its expiry as sent (a ttl counts from the write). */
function recordsOf(piece: Piece, out: KvKeyRecord[]): void {
  const base = out.length;
  for (const record of kvKeyRecords(columnsOf([piece]))) out.push(record);
  const { expiring } = piece;
  for (let e = 0; e < expiring.length; e += 3) {
    const [i, expiration, ttl] = [expiring[e], expiring[e + 1], expiring[e + 2]];
    const [key, hash] = out[base + i];
    out[base + i] = ttl >= 0 ? [key, hash, null, ttl] : [key, hash, expiration];
  }
}

/** A source with changed pairs: seqs[lo..hi) are its, read as pieces cut at the chunks' ends. */
interface SpanPart {
  readonly span: OriginSpan;
  readonly lo: number;
  readonly hi: number;
}

function partsOf(payload: KvPayload, seqs: Uint32Array): SpanPart[] {
  return payload.spans.map((span) => ({ span, lo: lowerBound(seqs, span.first), hi: lowerBound(seqs, span.first + span.count) })).filter((p) => p.hi > p.lo);
}

/** The pieces of `part`, cut where chunks end. */
function sourceOf(payload: KvPayload, seqs: Uint32Array, chunks: readonly ChunkSpan[], part: SpanPart, pool: BodyPool): PieceSource {
  const mine = seqs.subarray(part.lo, part.hi);
  const cuts: number[] = [];
  for (const c of chunks) if (c.end > part.lo && c.end < part.hi) cuts.push(c.end - part.lo);
  cuts.push(part.hi - part.lo);
  const spec = { first: part.span.first, seqs: mine, tags: payload.tags, wire: payload.wire, cuts: Uint32Array.from(cuts), ...(payload.verify && { verify: true }) };
  return piecesOf(part.span, spec, pool);
}

/** The message of a piece's problem, as a person finds the pair. */
function problemError(err: unknown, part: SpanPart): Error {
  if (!(err instanceof PieceProblem)) return err instanceof Error ? err : new Error(String(err));
  const { origin } = part.span;
  if (!err.at) return new Error(`${origin.name} has fewer pairs than when the plan read it`);
  const label = origin.label(err.at);
  if (err.why !== undefined) return new Error(`${label} is no longer a valid pair (${err.why}): the source changed since the plan`);
  return new Error(`${label} is not the pair the plan read: the source changed since the plan`);
}

/**
 * One listener on each stop signal while any take waits on it, not one a take: every chunk of a
 * resource is taken when its action starts, before its turn to be made, so a sync of 1,000 chunks
 * had 1,000 listeners on the run's signal (and Node printed a listener-leak warning). Removed when
 * the last take waiting on it settles: a listener left on the run's signal would keep the feed alive.
 */
class StopListeners {
  private readonly counts = new Map<AbortSignal, { waiting: number; onAbort: () => void }>();
  constructor(private readonly stopped: (signal: AbortSignal) => void) {}

  listen(signal: AbortSignal | undefined): void {
    if (!signal) return;
    const held = this.counts.get(signal);
    if (held) {
      held.waiting++;
      return;
    }
    const onAbort = () => this.stopped(signal);
    this.counts.set(signal, { waiting: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  unlisten(signal: AbortSignal | undefined): void {
    const held = signal && this.counts.get(signal);
    if (!held || --held.waiting > 0) return;
    this.counts.delete(signal);
    signal.removeEventListener('abort', held.onAbort);
  }
}

/**
 * The deferred bodies of `chunks`, in order: the first taken starts the reading. A file changed
 * since the plan (its size, time or inode), or a pair whose hash is not the plan's, stops the
 * reading: that chunk and every later one are not sent.
 */
export function deferredChunks(payload: KvPayload, seqs: Uint32Array, chunks: readonly ChunkSpan[]): DeferredBody[] {
  const made = new Map<number, Made>();
  const waiting = new Map<number, { resolve: (m: Made) => void; reject: (e: Error) => void; signal?: AbortSignal }>();
  // A stop rejects the takes waiting on it.
  const stops = new StopListeners((signal) => {
    for (const [n, w] of waiting)
      if (w.signal === signal) {
        waiting.delete(n);
        w.reject(new Error('stopped'));
      }
  });
  let failure: Error | undefined;
  let started = false;
  let next = 0;
  // Chunks read and not settled yet: the read-ahead.
  const unsettled = new Set<number>();
  let reading = false;
  const parts = partsOf(payload, seqs);
  // Each made chunk's buffer, given back to the pool once its action settled (done): it is sent by then.
  const pool = new BodyPool(READ_AHEAD * 2);
  const buffers = new Map<number, ArrayBuffer>();
  // The part being read and its source; parts are read in order, each once.
  let p = 0;
  let source: PieceSource | undefined;

  const close = () => {
    source?.close();
    source = undefined;
  };

  const fail = (err: Error) => {
    failure = err;
    close();
    for (const [, w] of waiting) w.reject(err);
    waiting.clear();
  };

  const produce = async (n: number): Promise<Made> => {
    const { start, end } = chunks[n];
    const pieces: Piece[] = [];
    // Every part with pairs in this chunk gives one piece of it.
    for (; p < parts.length && parts[p].lo < end; ) {
      const part = parts[p];
      source ??= sourceOf(payload, seqs, chunks, part, pool);
      try {
        if (part.hi > start) pieces.push(await source.next());
      } catch (err) {
        throw problemError(err, part);
      }
      if (part.hi > end) break;
      close();
      p++;
    }
    const body = chunkBody(pieces, pool);
    buffers.set(n, body.buffer as ArrayBuffer);
    return { body, kvKeys: keysOf(pieces) };
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
        if (next === chunks.length) close();
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
  return chunks.map(
    (_, n): DeferredBody => ({
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
        if (signal?.aborted) return Promise.reject(new Error('stopped'));
        const promise = new Promise<Made>((resolve, reject) => {
          stops.listen(signal);
          const settle = () => stops.unlisten(signal);
          waiting.set(n, {
            resolve: (m) => (settle(), resolve(m)),
            reject: (e) => (settle(), reject(e)),
            signal,
          });
        });
        void pump();
        return promise;
      },
      done() {
        unsettled.delete(n);
        made.delete(n);
        const buffer = buffers.get(n);
        buffers.delete(n);
        if (buffer) pool.give(buffer);
        void pump();
      },
    }),
  );
}
