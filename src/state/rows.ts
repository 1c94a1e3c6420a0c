// Rows of the state file and their conversion to the contract's values.
// JSON columns hold canonical JSON, so equal values are equal text.

import { internTable } from '../util/intern.js';
import { canonicalJson, type Json } from '../util/json.js';
import type { AppliedResource, Intent, ResourceIdentity, ResourceStatus, RunRecord } from './types.js';

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
  /** 1: prune never deletes it (AppliedResource.protected); null otherwise. */
  protect: number | null;
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

/**
 * Values many rows repeat (kinds, statuses, credentials, scopes, file names), one copy of each, up to
 * SHARED_LIMIT: the daemon keeps every row between runs, and each row read gets its own strings.
 */
const SHARED_LIMIT = 10_000;
const sharedTexts = internTable<string>(SHARED_LIMIT);
const sharedScopes = internTable<Readonly<Record<string, string>>>(SHARED_LIMIT);

const itself = (text: string): string => text;
const frozenScope = (text: string): Readonly<Record<string, string>> => Object.freeze(JSON.parse(text) as Record<string, string>);

function shared<T extends string | null>(text: T): T {
  return text === null ? text : (sharedTexts(text, itself) as T);
}

function scopeOf(text: string): Readonly<Record<string, string>> {
  return sharedScopes(text, frozenScope);
}

/** A row's source place, its file name shared. */
function sourceOf(text: string | null): Json | undefined {
  const source = parsed(text);
  if (source !== null && typeof source === 'object' && !Array.isArray(source) && typeof source.file === 'string') source.file = shared(source.file);
  return source;
}

/** Optional fields are left out rather than set to undefined, so records compare cleanly. */
export function toResource(row: ResourceRow, uncertain: boolean): AppliedResource {
  const out: Record<string, unknown> = {
    key: row.key,
    kind: shared(row.kind),
    name: row.name,
    scope: scopeOf(row.scope),
    status: uncertain ? 'uncertain' : shared(row.status),
  };
  const optional: [string, unknown][] = [
    ['remoteId', row.remote_id],
    ['request', parsed(row.request)],
    ['hash', row.hash],
    ['appliedAt', row.applied_at],
    ['etag', row.etag],
    ['memo', parsed(row.memo)],
    ['lastError', row.last_error],
    ['source', sourceOf(row.source)],
    ['credential', shared(row.credential)],
    ['protected', row.protect === 1 ? true : undefined],
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
function newRow(id: ResourceIdentity, status: ResourceStatus): ResourceRow {
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
    protect: null,
  };
}

/** The stored row with the identity refreshed (kind, name and scope always follow the latest write). */
export function withIdentity(row: ResourceRow | undefined, id: ResourceIdentity, status: ResourceStatus): ResourceRow {
  return row ? { ...row, kind: id.kind, name: id.name, scope: canonicalJson(id.scope) } : newRow(id, status);
}

/** A run's row: the record's fields in snake_case, its errors as JSON. */
export interface RunRow {
  started_at: string;
  finished_at: string;
  reason: string;
  result: string;
  revision: string | null;
  actions: number;
  succeeded: number;
  failed: number;
  uncertain: number;
  skipped: number;
  requests: number;
  errors: string;
}

/** So that a run of ten thousand failures does not make a row of megabytes: /status and the log have them all. */
const KEPT_ERRORS = 20;
const KEPT_ERROR_CHARS = 1000;

export function toRunRow(run: RunRecord): RunRow {
  const errors = run.errors.slice(0, KEPT_ERRORS).map((e) => (e.length > KEPT_ERROR_CHARS ? `${e.slice(0, KEPT_ERROR_CHARS - 1)}…` : e));
  if (run.errors.length > KEPT_ERRORS) errors.push(`… and ${run.errors.length - KEPT_ERRORS} more`);
  return {
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    reason: run.reason,
    result: run.result,
    revision: run.revision,
    actions: run.actions,
    succeeded: run.succeeded,
    failed: run.failed,
    uncertain: run.uncertain,
    skipped: run.skipped,
    requests: run.requests,
    errors: JSON.stringify(errors),
  };
}

export function toRun(row: RunRow): RunRecord {
  return {
    reason: row.reason,
    result: row.result,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    revision: row.revision,
    actions: Number(row.actions),
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    uncertain: Number(row.uncertain),
    skipped: Number(row.skipped),
    requests: Number(row.requests),
    errors: JSON.parse(row.errors) as string[],
  };
}
