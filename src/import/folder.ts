// The folder `edgesync import` writes to: what its documents already hold (read, never rewritten), and
// new documents appended to each kind's file, so that a person's edits stay as they are.

import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { appended, placeOf, type Identity } from './documents.js';

/** What the folder's documents hold: where each object is (placeOf), and the names taken in each kind. */
export interface Held {
  readonly places: ReadonlySet<string>;
  readonly names: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The YAML files below `dir`, dot-folders skipped (the state, secrets). */
function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...yamlFiles(full));
    else if (/\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out.sort();
}

/** Reads every document below `dir`: a document that cannot be read names nothing (the loader will say why). */
export function heldIn(dir: string, identityOf: (kind: string) => Identity | undefined): Held {
  const places = new Set<string>();
  const names = new Map<string, Set<string>>();
  for (const file of yamlFiles(dir)) {
    for (const doc of parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) continue;
      const value: unknown = doc.toJS();
      if (value === null || typeof value !== 'object') continue;
      const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
      if (typeof kind !== 'string' || metadata === null || typeof metadata !== 'object') continue;
      const meta = metadata as Record<string, unknown>;
      const identity = identityOf(kind);
      if (identity) places.add(placeOf(kind, meta, identity));
      if (typeof meta.name === 'string') names.set(kind, (names.get(kind) ?? new Set()).add(meta.name));
    }
  }
  return { places, names };
}

/** Appends `documents` to `file` (made with its folder when absent); what it holds stays byte for byte. */
export function appendDocuments(file: string, documents: readonly string[]): void {
  if (documents.length === 0) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.writeFileSync(file, appended(before, documents));
}
