// Identifiers, timestamps and secrets the way docs/operations.md describes them:
// lists get UUIDs, other ids are 32 lowercase hex, times are ISO 8601.

import { randomBytes, randomUUID } from 'node:crypto';

export const hexId = (): string => randomBytes(16).toString('hex');
export const uuid = (): string => randomUUID();
export const isoTime = (ms: number): string => new Date(ms).toISOString();
/** A token secret: 40 URL-safe characters. */
export const newSecret = (): string => randomBytes(30).toString('base64url');
/** Several strings as one map key. */
export const compositeKey = (...parts: string[]): string => parts.join('\u0000');
