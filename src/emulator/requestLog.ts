// The request log: the last 10,000 calls under /client/v4, without KV bodies or secrets.

import type { JsonValue, RecordedRequest } from './types.js';

export const requestLogCapacity = 10_000;
/** JSON bodies up to this size are kept in the log. */
export const loggedBodyLimit = 16 * 1024;

export class RequestLog {
  private entries: RecordedRequest[] = [];
  private next = 0;

  add(entry: RecordedRequest): void {
    if (this.entries.length < requestLogCapacity) this.entries.push(entry);
    else this.entries[this.next] = entry;
    this.next = (this.next + 1) % requestLogCapacity;
  }

  /** Oldest first. */
  list(): RecordedRequest[] {
    if (this.entries.length < requestLogCapacity) return [...this.entries];
    return [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
  }

  clear(): void {
    this.entries = [];
    this.next = 0;
  }
}

/** A copy of `value` with every string that `isSecret` recognises replaced by "[redacted]". */
export function redact(value: JsonValue, isSecret: (text: string) => boolean): JsonValue {
  if (typeof value === 'string') return isSecret(value) ? '[redacted]' : value;
  if (Array.isArray(value)) return value.map((v) => redact(v, isSecret));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, isSecret)]));
  }
  return value;
}
