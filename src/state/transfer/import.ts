// `edgesync state import`: reading an export back, line by line, every record checked in a first
// pass before anything is written, then written into an empty state in one transaction.

import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { StateAdmin } from '../admin.js';
import { checkRecord, FORMAT, FORMAT_VERSION, type StateRecord } from './format.js';
import { checkEmpty, Counter, countsDiffer, countsOf, writeRecord, type Counts } from './records.js';
import { backendOf, intoEmptyState, type StateSpec } from './target.js';

/** An export that cannot be imported; the message names the file, the line and what is wrong. */
class StateFileFormatError extends Error {
  override name = 'StateFileFormatError';
}

/** As written (one record per line), or any other layout of the same JSON (read whole). */
type Layout = 'lines' | 'whole';

/** The first line is not the header as the export writes it: the file is read whole instead. */
class OtherLayout extends Error {}

/** A checked export, ready to be written. */
interface CheckedFile {
  readonly file: string;
  /** The file as messages name it. */
  readonly shown: string;
  readonly layout: Layout;
  readonly counts: Counts;
}

const CHUNK = 1 << 20;

/** The file's lines, numbered from 1, read a chunk at a time. */
function* lines(file: string): Generator<[number, string]> {
  const fd = fs.openSync(file, 'r');
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(CHUNK);
  let rest = '';
  let n = 0;
  try {
    for (;;) {
      const got = fs.readSync(fd, buffer, 0, CHUNK, null);
      rest += got ? decoder.write(buffer.subarray(0, got)) : decoder.end();
      let start = 0;
      for (let i = rest.indexOf('\n'); i >= 0; i = rest.indexOf('\n', start)) {
        yield [++n, rest.slice(start, i).replace(/\r$/, '')];
        start = i + 1;
      }
      rest = rest.slice(start);
      if (!got) break;
    }
    if (rest) yield [++n, rest.replace(/\r$/, '')];
  } finally {
    fs.closeSync(fd);
  }
}

/** JSON.parse, its error said with where: "FILE line 7, column 12: not valid JSON: …". `line`: the text is that line. */
function parse(text: string, shown: string, line?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message);
    let where = line === undefined ? '' : ` line ${line}`;
    if (position) {
      const before = text.slice(0, Number(position[1]));
      const column = before.length - before.lastIndexOf('\n');
      where = ` line ${(line ?? 1) + before.split('\n').length - 1}, column ${column}`;
    }
    throw new StateFileFormatError(`${shown}${where}: not valid JSON: ${message.replace(/ in JSON at position \d+.*$/s, '').slice(0, 200)}`);
  }
}

function checkHeader(value: unknown, shown: string): void {
  const h = (value ?? {}) as Record<string, unknown>;
  if (typeof value !== 'object' || Array.isArray(value) || h.format !== FORMAT) {
    throw new StateFileFormatError(`${shown} is not an edgesync state export: it has no "format": "${FORMAT}" (make one with \`edgesync state export\`)`);
  }
  if (!Number.isInteger(h.version) || (h.version as number) < 1) {
    throw new StateFileFormatError(`${shown} has no valid "version" (got ${JSON.stringify(h.version)}): it is damaged; export the state again`);
  }
  if (h.version !== FORMAT_VERSION) {
    throw new StateFileFormatError(`${shown} is edgesync state version ${String(h.version)}; this edgesync reads version ${FORMAT_VERSION}: upgrade edgesync`);
  }
  if (!Array.isArray(h.records)) throw new StateFileFormatError(`${shown} has no "records" list: it is damaged; export the state again`);
}

/** The records with where each is, from either layout; the header is checked first. */
function* located(file: string, shown: string, layout: Layout): Generator<[string, unknown]> {
  if (layout === 'whole') {
    const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    if (!text.trim()) throw new StateFileFormatError(`${shown} is empty: it is not an edgesync state export`);
    const whole = parse(text, shown) as { records?: unknown };
    checkHeader(whole, shown);
    for (const [i, record] of (whole.records as unknown[]).entries()) yield [`record ${i + 1}`, record];
    return;
  }
  let state: 'header' | 'records' | 'closed' = 'header';
  let last: { line: number; comma: boolean } | undefined; // the record before
  for (const [n, raw] of lines(file)) {
    const text = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (!text) continue;
    if (state === 'header') {
      let header: unknown;
      try {
        header = JSON.parse(`${text}]}`);
      } catch {
        throw new OtherLayout();
      }
      checkHeader(header, shown);
      state = 'records';
    } else if (state === 'closed') {
      throw new StateFileFormatError(`${shown} line ${n}: not valid JSON: nothing may follow the closing ]}`);
    } else if (text === ']}') {
      if (last?.comma) throw new StateFileFormatError(`${shown} line ${last.line}: not valid JSON: a comma after the last record`);
      state = 'closed';
    } else {
      if (last && !last.comma) throw new StateFileFormatError(`${shown} line ${last.line}: not valid JSON: a comma is missing after this record`);
      const comma = text.endsWith(',');
      const value = parse(comma ? text.slice(0, -1) : text, shown, n);
      last = { line: n, comma };
      yield [`line ${n}`, value];
    }
  }
  if (state === 'header') throw new StateFileFormatError(`${shown} is empty: it is not an edgesync state export`);
  if (state !== 'closed') throw new StateFileFormatError(`${shown} ends without its closing ]}: the file is cut short; export the state again`);
}

/** Every record checked, alone and against those before it; the end record must agree with the count. */
function* records(file: string, shown: string, layout: Layout, counter: Counter): Generator<StateRecord> {
  const seen = new Set<string>();
  let ended: string | undefined;
  for (const [where, value] of located(file, shown, layout)) {
    const at = (message: string) => new StateFileFormatError(`${shown} ${where}: ${message}`);
    if (ended) throw at(`nothing may follow the end record (${ended})`);
    let record: StateRecord;
    try {
      record = checkRecord(value);
    } catch (err) {
      throw at(err instanceof Error ? err.message : String(err));
    }
    if (record.type === 'resource') {
      if (seen.has(record.key)) throw at(`${record.key} is listed twice`);
      seen.add(record.key);
    } else if (record.type === 'end') {
      const t = counter.tally();
      if (record.resources !== t.resources || record.intents !== t.intents || record.kv_keys !== t.kvKeys) {
        throw at(
          `the end record counts ${record.resources} resources, ${record.intents} intents and ${record.kv_keys} KV keys, but the file holds ${t.resources}, ${t.intents} and ${t.kvKeys}: it was cut or edited; export the state again`,
        );
      }
      ended = where;
    } else if (!seen.has(record.resource)) {
      throw at(`${record.type === 'intent' ? 'an intent' : 'KV keys'} of ${record.resource}, which no resource record before it names`);
    }
    counter.add(record);
    yield record;
  }
  if (!ended) throw new StateFileFormatError(`${shown} has no end record: the file is cut short; export the state again`);
}

/**
 * Reads the whole file once, checking every record; nothing is written.
 * @public test/state/transfer.test.ts runs it compiled, in a process with a small heap.
 */
export function checkStateFile(file: string, shown = file): CheckedFile {
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (err) {
    throw new StateFileFormatError(`${shown} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): pass the path of a file \`edgesync state export\` wrote`);
  }
  const pass = (layout: Layout): CheckedFile => {
    const counter = new Counter();
    for (const _ of records(file, shown, layout, counter));
    return { file, shown, layout, counts: counter.tally() };
  };
  try {
    return pass('lines');
  } catch (err) {
    if (err instanceof OtherLayout) return pass('whole');
    // A file laid out otherwise (pretty-printed) is still the same JSON; if it is not JSON either, the line's error stands.
    if (!(err instanceof StateFileFormatError) || !/: not valid JSON: |ends without its closing/.test(err.message)) throw err;
    try {
      return pass('whole');
    } catch (whole) {
      throw whole instanceof StateFileFormatError && !/: not valid JSON: /.test(whole.message) ? whole : err;
    }
  }
}

/**
 * Writes a checked file into `store` in one transaction, refused when the state holds anything;
 * the counts read back in the same transaction must be the file's, or nothing is written.
 */
function importStateFile(store: StateAdmin, checked: CheckedFile, shownState: string): Promise<Counts> {
  return store.withStatements('write', async (sql) => {
    await checkEmpty(sql, shownState, 'import');
    const counter = new Counter();
    for (const record of records(checked.file, checked.shown, checked.layout, counter)) await writeRecord(sql, record);
    const held = await countsOf(sql);
    const differ = countsDiffer(checked.counts, held, (n) => `the file lists ${n}`);
    if (differ) throw new StateFileFormatError(`${checked.shown}: after writing, ${shownState} would hold ${differ}; nothing was imported`);
    return held;
  });
}

/** Checks `file`, then writes it into the state `into` names, which must be empty or not exist yet. */
export async function importState(file: string, into: StateSpec, shown = file): Promise<{ readonly into: string; readonly counts: Counts }> {
  const checked = checkStateFile(file, shown);
  const target = backendOf(into).shown;
  return { into: target, counts: await intoEmptyState(into, 'edgesync state import', 'import', (store) => importStateFile(store, checked, target)) };
}
