// Rows of the state file and their conversion to the contract's values.
// JSON columns hold canonical JSON, so equal values are equal text.

import { canonicalJson, type Json } from '../util/json.js';
import type { AppliedResource, Intent, ResourceIdentity, ResourceStatus } from './types.js';

export interface ResourceRow {
  key: string;
  kind: string;
  name: string;
  scope: string;
  remote_id: string | null;
  request: string | null;
  hash: string | null;
  applied_at: string | null;
  etag: string | null;
  memo: string | null;
  status: ResourceStatus;
  last_error: string | null;
  source: string | null;
  credential: string | null;
}

export interface IntentRow {
  id: number;
  resource: string;
  operation: string;
  request: string;
  request_hash: string;
  started_at: string;
  error: string | null;
  /** The resource's status when the intent began; null when the intent created the row. */
  prior_status: ResourceStatus | null;
}

export const STATUSES: readonly ResourceStatus[] = ['applied', 'failed', 'blocked', 'orphaned', 'uncertain'];

export function jsonText(value: Json | undefined): string | null {
  return value === undefined ? null : canonicalJson(value);
}

function parsed(text: string | null): Json | undefined {
  return text === null ? undefined : (JSON.parse(text) as Json);
}

/** Optional fields are left out rather than set to undefined, so records compare cleanly. */
export function toResource(row: ResourceRow, uncertain: boolean): AppliedResource {
  const out: Record<string, unknown> = {
    key: row.key,
    kind: row.kind,
    name: row.name,
    scope: JSON.parse(row.scope) as Record<string, string>,
    status: uncertain ? 'uncertain' : row.status,
  };
  const optional: [string, unknown][] = [
    ['remoteId', row.remote_id],
    ['request', parsed(row.request)],
    ['hash', row.hash],
    ['appliedAt', row.applied_at],
    ['etag', row.etag],
    ['memo', parsed(row.memo)],
    ['lastError', row.last_error],
    ['source', parsed(row.source)],
    ['credential', row.credential],
  ];
  for (const [name, value] of optional) if (value !== null && value !== undefined) out[name] = value;
  return out as unknown as AppliedResource;
}

export function toIntent(row: IntentRow): Intent {
  const intent: Intent = {
    id: row.id,
    resource: row.resource,
    operation: row.operation,
    request: JSON.parse(row.request) as Json,
    requestHash: row.request_hash,
    startedAt: row.started_at,
  };
  return row.error === null ? intent : { ...intent, error: row.error };
}

/** A row for an identity seen for the first time. */
export function newRow(id: ResourceIdentity, status: ResourceStatus): ResourceRow {
  return {
    key: id.key,
    kind: id.kind,
    name: id.name,
    scope: canonicalJson(id.scope),
    remote_id: null,
    request: null,
    hash: null,
    applied_at: null,
    etag: null,
    memo: null,
    status,
    last_error: null,
    source: null,
    credential: null,
  };
}

/** The stored row with the identity refreshed (kind, name and scope always follow the latest write). */
export function withIdentity(row: ResourceRow | undefined, id: ResourceIdentity, status: ResourceStatus): ResourceRow {
  return row ? { ...row, kind: id.kind, name: id.name, scope: canonicalJson(id.scope) } : newRow(id, status);
}
