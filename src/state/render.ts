// How state records read for people (`edgesync state list|show`) and as JSON.
// Requests arrive redacted, so printing them in full shows nothing secret.

import type { AppliedResource, Intent } from './types.js';

export interface ResourceView {
  readonly resource: AppliedResource;
  /** KV key count; absent for resources without KV keys. */
  readonly kvKeys?: number;
  readonly intent?: Intent;
}

const ERROR_WIDTH = 60;

function shorten(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

/** One line per resource, columns aligned: status, key, remote id, applied time, KV keys, last error. */
export function renderList(views: readonly ResourceView[]): string {
  const rows = views.map(({ resource: r, kvKeys }) => [
    r.status,
    r.key,
    r.remoteId ?? '-',
    r.appliedAt ?? '-',
    kvKeys === undefined ? '' : `${kvKeys} KV keys`,
    r.lastError ? shorten(r.lastError, ERROR_WIDTH) : '',
  ]);
  const header = ['STATUS', 'KEY', 'REMOTE ID', 'APPLIED', 'KV', 'LAST ERROR'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n');
}

/** The whole record: identity, status, ids, the applied request pretty-printed, KV count, open intent. */
export function renderShow({ resource: r, kvKeys, intent }: ResourceView): string {
  const scope = Object.entries(r.scope)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const fields: [string, string | undefined][] = [
    ['status', r.status],
    ['kind', r.kind],
    ['name', r.name],
    ['scope', scope || undefined],
    ['remote id', r.remoteId],
    ['applied at', r.appliedAt],
    ['hash', r.hash],
    ['etag', r.etag],
    ['last error', r.lastError],
    ['KV keys', kvKeys === undefined ? undefined : String(kvKeys)],
    ['memo', r.memo === undefined ? undefined : JSON.stringify(r.memo)],
  ];
  const lines = [r.key, ...fields.filter(([, v]) => v !== undefined).map(([k, v]) => `  ${`${k}:`.padEnd(12)}${v}`)];
  lines.push(r.request === undefined ? '  request:    (never applied)' : `  request:\n${indent(JSON.stringify(r.request, null, 2), '    ')}`);
  if (intent) {
    lines.push(`  open intent: ${intent.operation} #${intent.id} since ${intent.startedAt}${intent.error ? ` (${intent.error})` : ''}`);
    lines.push(`    request:\n${indent(JSON.stringify(intent.request, null, 2), '      ')}`);
    lines.push(`    resolve with \`edgesync state resolve ${r.key} --id ID\` or \`--recreate\``);
  }
  return lines.join('\n');
}

/** The JSON form: the record plus its KV key count and open intent. */
export function viewJson({ resource, kvKeys, intent }: ResourceView): Record<string, unknown> {
  return { ...resource, ...(kvKeys !== undefined && { kvKeys }), ...(intent && { intent }) };
}
