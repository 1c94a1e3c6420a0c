// A namespace's listing (name, expiration, metadata) walked beside the stored keys and the desired ones,
// all three in UTF-8 byte order, a page of each at a time: what drifted, what is gone, what edgesync never wrote.

import type { DesiredResource, Json, KeyDrift, ObservedKeys } from '../kind.js';
import type { KvRecordPage } from '../../state/types.js';
import { TurnCounter } from '../../util/turn.js';
import { SeqColumn } from './seq-column.js';
import { compareUtf8 } from './sorted.js';
import type { KvPayload } from './model.js';
import type { KeyEntry } from './key-entry.js';
import { VERIFY_KEY, verifyTag } from './pair.js';

/**
 * Seconds a listed expiration may differ from the recorded one: a ttl is counted from the write's answer
 * here and from its arrival there, so the two differ by the call's time and the clocks'.
 */
export const EXPIRY_SLACK = 60;
/** Keys named per reason, at most; the rest are counted. */
const NAMED = 10;
/** Keys walked between two turns of the event loop. */
const KEYS_PER_TURN = 4096;

const DRIFT = {
  missing: 'missing remotely',
  expiry: 'another expiration remotely',
  untagged: 'no content hash in its metadata (rewritten outside edgesync, or written before metadata.verify)',
  retagged: 'another content hash in its metadata (rewritten outside edgesync)',
} as const;

type Why = keyof typeof DRIFT;

class Tally {
  readonly keys: string[] = [];
  count = 0;

  constructor(private readonly named = NAMED) {}

  add(key: string): void {
    if (++this.count <= this.named) this.keys.push(key);
  }
}

/** The listing, an item at a time; an item that is not a key entry is passed over. */
class Listed {
  private items: readonly Json[] = [];
  private i = 0;
  count = 0;
  private readonly pages: AsyncIterator<readonly Json[]>;

  constructor(listing: AsyncIterable<readonly Json[]>) {
    this.pages = listing[Symbol.asyncIterator]();
  }

  /** True while an entry is at hand; reads the next page when this one is used up. */
  async more(): Promise<boolean> {
    for (;;) {
      while (this.i < this.items.length) {
        const item = this.items[this.i];
        if (item !== null && typeof item === 'object' && !Array.isArray(item) && typeof item.name === 'string') return true;
        this.i++;
      }
      const next = await this.pages.next();
      if (next.done) return false;
      this.items = next.value;
      this.i = 0;
    }
  }

  private get entry(): Readonly<Record<string, Json>> {
    return this.items[this.i] as Readonly<Record<string, Json>>;
  }

  get key(): string {
    return this.entry.name as string;
  }

  get expiration(): number | undefined {
    const e = this.entry.expiration;
    return typeof e === 'number' ? e : undefined;
  }

  get tag(): Json | undefined {
    const m = this.entry.metadata;
    return m !== null && typeof m === 'object' && !Array.isArray(m) ? m[VERIFY_KEY] : undefined;
  }

  skip(): void {
    this.i++;
    this.count++;
  }
}

/** The stored keys, hashes and recorded expiry, an entry at a time. */
class Stored {
  private page: KvRecordPage = { keys: [], hashes: [] };
  private i = 0;
  private readonly pages: AsyncIterator<KvRecordPage>;

  constructor(stored: AsyncIterable<KvRecordPage>) {
    this.pages = stored[Symbol.asyncIterator]();
  }

  async more(): Promise<boolean> {
    while (this.i >= this.page.keys.length) {
      const next = await this.pages.next();
      if (next.done) return false;
      this.page = next.value;
      this.i = 0;
    }
    return true;
  }

  get key(): string {
    return this.page.keys[this.i]!;
  }

  get hash(): string {
    return this.page.hashes[this.i]!;
  }

  /** When it expires remotely as recorded; null: never; undefined: not known (the page has no expiry). */
  get expires(): number | null | undefined {
    return this.page.expires ? (this.page.expires[this.i] ?? null) : undefined;
  }

  skip(): void {
    this.i++;
  }
}

/** Whether a listed expiration is the one recorded (undefined: not known, taken as the same). */
function sameExpiry(recorded: number | null | undefined, listed: number | undefined): boolean {
  if (recorded === undefined) return true;
  if (recorded === null || listed === undefined) return recorded === null && listed === undefined;
  return Math.abs(recorded - listed) <= EXPIRY_SLACK;
}

/**
 * Walks a KvPairs namespace's listing beside the keys state stored (with their recorded expiry) and the
 * config's: a stored key the config still has is drift when it is missing remotely (unless its recorded
 * expiry has passed: the plan sends those again already), listed with another expiration, or, with
 * metadata.verify, listed without the content hash of what was written. A listed key neither stored
 * nor in the config is counted as never written. Values are never read.
 */
export async function compareKv(desired: DesiredResource, listing: AsyncIterable<readonly Json[]>, stored: AsyncIterable<KvRecordPage>, now: number): Promise<ObservedKeys> {
  const payload = desired.payload as KvPayload | undefined;
  if (!payload?.keys) throw new TypeError(`${desired.key}: KvPairs resource without its keys (payload)`);
  const verify = payload.verify === true;
  const r = new Listed(listing);
  const s = new Stored(stored);
  const wanted = payload.keys.entries();
  let d: KeyEntry | undefined = wanted.next().value;
  const tallies = new Map<Why, Tally>();
  const drift = (why: Why, key: string) => {
    let t = tallies.get(why);
    if (!t) tallies.set(why, (t = new Tally()));
    t.add(key);
  };
  const again = new SeqColumn();
  const gone: string[] = [];
  const unmanaged = new Tally();
  const turns = new TurnCounter(KEYS_PER_TURN);
  let hasR = await r.more();
  let hasS = await s.more();
  while (hasR || hasS || d) {
    if (turns.due()) await turns.turn();
    // The least key of the three; each cursor at it takes part in this step.
    let key = hasR ? r.key : hasS ? s.key : d!.key;
    if (hasS && s.key !== key && compareUtf8(s.key, key) < 0) key = s.key;
    if (d && d.key !== key && compareUtf8(d.key, key) < 0) key = d.key;
    const inR = hasR && r.key === key;
    const inS = hasS && s.key === key;
    const entry = d?.key === key ? d : undefined;
    if (inS) {
      const expires = s.expires;
      let why: Why | undefined;
      if (!inR) why = expires != null && expires <= now ? undefined : 'missing';
      else if (!sameExpiry(expires, r.expiration)) why = 'expiry';
      else if (verify) {
        const tag = r.tag;
        why = tag === undefined ? 'untagged' : tag !== verifyTag(s.hash) ? 'retagged' : undefined;
      }
      if (why && entry) {
        drift(why, key);
        again.push(entry.seq);
      } else if (why === 'missing') gone.push(key);
      s.skip();
      hasS = await s.more();
    } else if (inR && !entry) unmanaged.add(key);
    if (inR) {
      r.skip();
      hasR = await r.more();
    }
    if (entry) d = wanted.next().value;
  }
  const order: Why[] = ['missing', 'expiry', 'untagged', 'retagged'];
  const drifts: KeyDrift[] = order.filter((why) => tallies.has(why)).map((why) => ({ why: DRIFT[why], count: tallies.get(why)!.count, keys: tallies.get(why)!.keys }));
  const seqs = new Uint32Array(again.length);
  for (let i = 0; i < seqs.length; i++) seqs[i] = again.get(i);
  return { listed: r.count, drift: drifts, again: seqs, gone, unmanaged: { count: unmanaged.count, keys: unmanaged.keys } };
}
