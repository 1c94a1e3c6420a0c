// `edgesync state export`: the whole state as one JSON text written line by line as it is read,
// from one consistent read; a million KV keys never sit in memory at once.

import { VERSION } from '../../util/version.js';
import type { StateAdmin } from '../admin.js';
import { FORMAT, FORMAT_VERSION, type Header } from './format.js';
import { Counter, readRecords, readRevision, type Tally } from './records.js';

export interface ExportOptions {
  /** KV keys per record (per line of the file). @default 10000 */
  readonly kvKeysPerRecord?: number;
  /** When the export is taken, for its header. @default new Date() */
  readonly now?: Date;
}

/** What was exported, and how many token secrets the state keeps that the export leaves out (as it leaves out every secret). */
export interface Exported extends Tally {
  readonly keptSecrets: number;
}

/** Writes the state of `store` (read-only is enough) to `write`, piece by piece; returns what it holds. */
export function exportState(store: StateAdmin, write: (text: string) => void, options: ExportOptions = {}): Promise<Exported> {
  const perRecord = options.kvKeysPerRecord ?? 10_000;
  const now = options.now ?? new Date();
  return store.withStatements('read', async (sql) => {
    const header: Header = { format: FORMAT, version: FORMAT_VERSION, written_by: `edgesync ${VERSION}`, exported_at: now.toISOString(), state: await readRevision(sql) };
    write(`${JSON.stringify(header).slice(0, -1)},"records":[\n`);
    const counter = new Counter();
    for await (const record of readRecords(sql, perRecord, counter)) write(`${JSON.stringify(record)}${record.type === 'end' ? '' : ','}\n`);
    write(']}\n');
    return { ...counter.tally(), keptSecrets: Number(await sql.keptSecrets.get()) };
  });
}

/** The export as one string: for tests and small states (the command line streams it instead). */
export async function exportText(store: StateAdmin, options?: ExportOptions): Promise<string> {
  const parts: string[] = [];
  await exportState(store, (text) => parts.push(text), options);
  return parts.join('');
}
