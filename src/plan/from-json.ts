// A plan read back from its JSON shape (a saved plan), for the renderers alone: it has no body to
// send and nothing to record, so the executor never takes it.

import type { OperationName } from '../api/operations.js';
import type { PlanJson } from './json.js';
import type { Action, Plan } from './types.js';

type Place = { readonly file: string; readonly line: number; readonly col: number };
type Source = (Place & { readonly overlay?: Place }) | null | undefined;

const at = (p: Place): Place => ({ file: p.file, line: p.line, col: p.col });
const place = (source: Source) => (source ? { source: { ...at(source), ...(source.overlay && { overlay: at(source.overlay) }) } } : {});

/** What `edgesync show FILE` renders as text: the saved plan as the plan it was, bodies and records left out. */
export function planFromJson(json: PlanJson): Plan {
  const actions: Action[] = json.actions.map((a) => {
    const keys = a.removes && 'keys' in a.removes ? a.removes.keys : undefined;
    // An id is `${resource}#${change}`, then `:${suffix}` when several actions share a change (KV chunks).
    const head = `${a.resource}#${a.change}:`;
    return {
      id: a.id,
      resource: a.resource,
      kind: a.kind,
      name: a.name,
      scope: a.scope,
      change: a.change,
      operation: a.operation as OperationName | null,
      params: {},
      // A prune's chunk of KV keys: the renderers name its keys from the body.
      body: keys,
      diff: a.diff,
      needs: a.needs,
      ...(a.id.startsWith(head) && { suffix: a.id.slice(head.length) }),
      ...(a.summary !== null && { summary: a.summary }),
      ...(a.details && { details: a.details }),
      ...(a.size && { size: a.size }),
      ...(a.resync && { resync: true as const }),
      ...(a.credential !== null && { credential: a.credential }),
      ...place(a.source ?? a.removes?.source),
      record: {
        ...(a.record_hash !== null && { hash: a.record_hash }),
        ...(a.removes && { removed: keys && !('resource' in a.removes) ? { keys } : { resource: true as const } }),
      },
    };
  });
  return {
    actions,
    blocked: json.blocked.map((b) => ({ resource: b.resource, kind: b.kind, name: b.name, reason: b.reason, fields: b.fields, ...place(b.source) })),
    orphaned: json.orphaned.map((o) => ({
      resource: o.resource,
      kind: o.kind,
      name: o.name,
      message: o.message,
      ...(o.keys && { keys: o.keys }),
      ...(o.key_count !== undefined && { keyCount: o.key_count }),
      ...place(o.source),
    })),
    forgotten: json.forgotten.map((f) => ({ resource: f.resource, kind: f.kind, name: f.name, why: f.why, ...place(f.source) })),
    uncertain: json.uncertain.map((u) => ({
      resource: u.resource,
      kind: u.kind,
      name: u.name,
      operation: u.operation,
      since: u.since,
      message: u.message,
      ...(u.delete && { delete: true as const }),
    })),
    waiting: json.waiting.map((w) => ({
      resource: w.resource,
      kind: w.kind,
      name: w.name,
      on: w.on,
      because: w.because as Plan['waiting'][number]['because'],
      message: w.message,
    })),
    notes: json.notes,
    ...(json.expiring?.length && {
      expiring: json.expiring.map((e) => ({ resource: e.resource, kind: e.kind, name: e.name, expiresOn: e.expires_on, message: e.message, ...place(e.source) })),
    }),
    unchanged: json.unchanged,
    ...(json.excluded.length && { excluded: json.excluded }),
    ...(json.refresh && {
      refresh: {
        calls: json.refresh.calls,
        recreateMissing: json.made_from?.refresh?.recreate_missing === true,
        unchecked: json.refresh.unchecked.map((u) => ({ ...(u.credential !== null && { credential: u.credential }), why: u.why, resources: u.resources })),
      },
      drifted: (json.drifted ?? []).map((d) => ({ resource: d.resource, kind: d.kind, name: d.name, fields: d.fields as Plan['actions'][number]['diff'], ...place(d.source) })),
      accepted: (json.accepted ?? []).map((a) => ({
        resource: a.resource,
        kind: a.kind,
        name: a.name,
        fields: a.fields as Plan['actions'][number]['diff'],
        request: null,
        hash: '',
        ...place(a.source),
      })),
      missing: (json.missing ?? []).map((m) => ({ resource: m.resource, kind: m.kind, name: m.name, message: m.message, recreated: m.recreated, ...place(m.source) })),
      unmanaged: (json.unmanaged ?? []).map((u) => ({ resource: u.resource, kind: u.kind, name: u.name, count: u.key_count, keys: u.keys })),
    }),
  };
}
