// Fault injection for calls under /client/v4: a fixed-window rate limit per credential (429 + Retry-After,
// and its count on every answer), a seeded share of 500/503 answers before any processing, added
// latency, and faults aimed at one operation by name, before or after it is carried out.

import { checkInteger, checkNumber, fail } from '../util/options.js';
import { isPlainObject } from './validate.js';
import { EmulatorError } from './errors.js';
import { OPERATION_NAMES } from './operations.js';

export interface RateLimit {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** What `setFaults` and POST /__emulator/faults change; absent fields stay as they are. */
export interface FaultSettings {
  readonly failRate?: number;
  /** null removes the limit. */
  readonly rateLimit?: RateLimit | null;
  /** Whether answers under a rate limit carry `Ratelimit` and `Ratelimit-Policy` (a 429 its Retry-After regardless). @default true */
  readonly rateLimitHeaders?: boolean;
  readonly latencyMs?: number;
  /**
   * Bulk writes that store only some keys and bulk deletes that delete only some, answering the
   * others as unsuccessful: a seeded `share`
   * of the keys, each refused `once` (then taken) or every time, and always the keys matching
   * `pattern` (a regular expression). null turns it off.
   */
  readonly kvRefuse?: KvRefusal | null;
  /**
   * Faults aimed at operations by name (`deleteList`, `createRoute`, `updateRoute`, … as
   * docs/operations.md names them): each replaces the given operation's fault, null removes it,
   * and null for the whole map removes them all.
   */
  readonly operations?: Readonly<Record<string, OperationFault | null>> | null;
}

/** A fault for the next calls of one operation (after authentication, the body parsed). */
interface OperationFault {
  /**
   * What the caller gets: a 500 or 503 answer; `reset`, the connection closed with no answer; or
   * `late`, the call's own answer `delayMs` later (a client with a shorter timeout gives up on it). @default 500
   */
  readonly answer?: 500 | 503 | 'reset' | 'late';
  /** How long a `late` answer waits. @default 30000 */
  readonly delayMs?: number;
  /**
   * Whether the call is carried out first and only its answer lost or late, so the caller cannot
   * know it was made (a create made, a delete done); otherwise a 500, 503 or reset changes nothing,
   * and a late call is carried out when its wait is over. @default false
   */
  readonly afterProcessing?: boolean;
  /** How many calls of the operation it hits; then it is gone. @default 1 */
  readonly times?: number;
}

/** What a fault aimed at one call does to it. */
export interface AimedFault {
  readonly answer: 500 | 503 | 'reset' | 'late';
  readonly delayMs: number;
}

interface KvRefusal {
  readonly share?: number;
  readonly once?: boolean;
  readonly pattern?: string;
}

/** Throws an OptionError naming the first bad field. */
export function checkFaults(f: unknown): FaultSettings {
  if (!isPlainObject(f)) fail('faults', 'an object', f);
  if (f.failRate !== undefined) checkNumber('failRate', f.failRate, 0, 1);
  if (f.latencyMs !== undefined) checkNumber('latencyMs', f.latencyMs, 0, 600_000);
  if (f.rateLimitHeaders !== undefined && typeof f.rateLimitHeaders !== 'boolean') fail('rateLimitHeaders', 'true or false', f.rateLimitHeaders);
  if (f.kvRefuse !== undefined && f.kvRefuse !== null) {
    if (!isPlainObject(f.kvRefuse)) fail('kvRefuse', 'an object {share?, once?, pattern?} or null', f.kvRefuse);
    if (f.kvRefuse.share !== undefined) checkNumber('kvRefuse.share', f.kvRefuse.share, 0, 1);
    if (f.kvRefuse.once !== undefined && typeof f.kvRefuse.once !== 'boolean') fail('kvRefuse.once', 'true or false', f.kvRefuse.once);
    if (f.kvRefuse.pattern !== undefined) {
      if (typeof f.kvRefuse.pattern !== 'string') fail('kvRefuse.pattern', 'a regular expression', f.kvRefuse.pattern);
      try {
        new RegExp(f.kvRefuse.pattern);
      } catch {
        fail('kvRefuse.pattern', 'a valid regular expression', f.kvRefuse.pattern);
      }
    }
  }
  if (f.operations !== undefined && f.operations !== null) {
    if (!isPlainObject(f.operations)) fail('operations', 'an object {NAME: {answer?, afterProcessing?, times?} or null} or null', f.operations);
    for (const [name, fault] of Object.entries(f.operations)) {
      if (!OPERATION_NAMES.includes(name)) fail(`operations.${name}`, `the name of an operation (${OPERATION_NAMES.join(', ')})`, name);
      if (fault === null) continue;
      if (!isPlainObject(fault)) fail(`operations.${name}`, 'an object {answer?, afterProcessing?, times?} or null', fault);
      if (fault.answer !== undefined && ![500, 503, 'reset', 'late'].includes(fault.answer as number | string))
        fail(`operations.${name}.answer`, "500, 503, 'reset' or 'late'", fault.answer);
      if (fault.delayMs !== undefined) checkNumber(`operations.${name}.delayMs`, fault.delayMs, 0, 600_000);
      if (fault.afterProcessing !== undefined && typeof fault.afterProcessing !== 'boolean') fail(`operations.${name}.afterProcessing`, 'true or false', fault.afterProcessing);
      if (fault.times !== undefined) checkInteger(`operations.${name}.times`, fault.times, 1);
    }
  }
  if (f.rateLimit !== undefined && f.rateLimit !== null) {
    if (!isPlainObject(f.rateLimit)) fail('rateLimit', 'an object {limit, windowSeconds} or null', f.rateLimit);
    checkInteger('rateLimit.limit', f.rateLimit.limit, 1);
    checkNumber('rateLimit.windowSeconds', f.rateLimit.windowSeconds, 0.001, 86_400);
  }
  return f as FaultSettings;
}

/** mulberry32: a small seeded generator, so a seed gives the same fault sequence every run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Faults {
  private failRate = 0;
  private rateLimit: RateLimit | null = null;
  private rateLimitHeaders = true;
  private latency = 0;
  private kvRefusal: { share: number; once: boolean; pattern: RegExp | null } | null = null;
  /** Per operation name: its fault and the calls it still hits. */
  private readonly aimed = new Map<string, AimedFault & { readonly afterProcessing: boolean; left: number }>();
  /** Keys already refused once, under `once`. */
  private readonly refusedOnce = new Set<string>();
  /** Per credential (as the request log names it): the current window's start and its calls. */
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly random: () => number;

  constructor(
    initial: FaultSettings,
    seed: number,
    private readonly now: () => number,
  ) {
    this.random = seededRandom(seed);
    this.set(initial);
  }

  set(f: FaultSettings): void {
    checkFaults(f);
    if (f.failRate !== undefined) this.failRate = f.failRate;
    if (f.latencyMs !== undefined) this.latency = f.latencyMs;
    if (f.rateLimitHeaders !== undefined) this.rateLimitHeaders = f.rateLimitHeaders;
    if (f.kvRefuse !== undefined) {
      const r = f.kvRefuse;
      this.kvRefusal = r && { share: r.share ?? 0, once: r.once ?? true, pattern: r.pattern ? new RegExp(r.pattern) : null };
      this.refusedOnce.clear();
    }
    if (f.operations === null) this.aimed.clear();
    else if (f.operations !== undefined) {
      for (const [name, fault] of Object.entries(f.operations)) {
        if (fault === null) this.aimed.delete(name);
        else this.aimed.set(name, { answer: fault.answer ?? 500, delayMs: fault.delayMs ?? 30_000, afterProcessing: fault.afterProcessing ?? false, left: fault.times ?? 1 });
      }
    }
    if (f.rateLimit !== undefined) {
      this.rateLimit = f.rateLimit && { limit: f.rateLimit.limit, windowSeconds: f.rateLimit.windowSeconds };
      this.windows.clear();
    }
  }

  get latencyMs(): number {
    return this.latency;
  }

  /** Whether the bulk write refuses `key` this time (it is then not stored). */
  refusesKey(key: string): boolean {
    const r = this.kvRefusal;
    if (!r) return false;
    if (r.pattern?.test(key)) return true;
    if (r.share <= 0 || (r.once && this.refusedOnce.has(key))) return false;
    if (this.random() >= r.share) return false;
    if (r.once) this.refusedOnce.add(key);
    return true;
  }

  /**
   * The fault aimed at this call of operation `name`, `after` processing or before it, if any: the
   * call counts against the fault's `times` only when it is the one hit.
   */
  operationFault(name: string, after: boolean): AimedFault | null {
    const fault = this.aimed.get(name);
    if (!fault || fault.afterProcessing !== after) return null;
    fault.left -= 1;
    if (fault.left <= 0) this.aimed.delete(name);
    return { answer: fault.answer, delayMs: fault.delayMs };
  }

  /**
   * The fault to answer instead of processing this call, if any. Every call counts toward the
   * window of `caller`, the credential it carries: one caller's burst never limits another.
   */
  check(caller = ''): EmulatorError | null {
    const limited = this.overLimit(caller);
    if (limited) return limited;
    if (this.failRate > 0 && this.random() < this.failRate) {
      return this.random() < 0.5 ? new EmulatorError(500, ['internal error (injected fault)']) : new EmulatorError(503, ['service unavailable (injected fault)']);
    }
    return null;
  }

  /**
   * What an answer to `caller` says of its rate limit, its call counted, in the provider's structured
   * form: calls left in the current window and whole seconds to its end (rounded up, so a client that
   * waits them out is past it), the quota and the window. None without a limit.
   */
  rateHeaders(caller = ''): Record<string, string> {
    if (!this.rateLimit || !this.rateLimitHeaders) return {};
    const { limit, windowSeconds } = this.rateLimit;
    const windowMs = windowSeconds * 1000;
    const now = this.now();
    const start = Math.floor(now / windowMs) * windowMs;
    const window = this.windows.get(caller);
    const used = window?.start === start ? window.count : 0;
    return {
      ratelimit: `"default";r=${Math.max(0, limit - used)};t=${Math.max(1, Math.ceil((start + windowMs - now) / 1000))}`,
      'ratelimit-policy': `"default";q=${limit};w=${windowSeconds}`,
    };
  }

  private overLimit(caller: string): EmulatorError | null {
    if (!this.rateLimit) return null;
    const windowMs = this.rateLimit.windowSeconds * 1000;
    const now = this.now();
    const start = Math.floor(now / windowMs) * windowMs;
    let window = this.windows.get(caller);
    if (window?.start !== start) this.windows.set(caller, (window = { start, count: 0 }));
    window.count += 1;
    if (window.count <= this.rateLimit.limit) return null;
    const retryAfter = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    return new EmulatorError(429, [`rate limited: more than ${this.rateLimit.limit} calls in ${this.rateLimit.windowSeconds} s`], {
      'retry-after': String(retryAfter),
    });
  }
}
