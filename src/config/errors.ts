// The loader's error value, its one-line rendering and field-path spelling (`spec.items[2].value`).
// Every error keeps its file, line and column from parse to report.

import path from 'node:path';
import type { FieldPath } from '../kinds/kind.js';
import { compareStrings } from '../util/compare.js';
import { internTable } from '../util/intern.js';
import { detached } from '../util/json.js';

export interface ConfigError {
  /** Relative to the working directory. */
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Like `spec.items[2].value`; '' for the document or the file. */
  readonly path: string;
  readonly message: string;
}

/** `file:line:col  field.path  message` (the path left out when it is the whole document), always one line. */
export function formatError(e: ConfigError): string {
  return oneLine(`${e.file}:${e.line}:${e.col}  ${e.path ? `${e.path}  ` : ''}${e.message}`);
}

/** Line breaks inside a message (a parser's excerpt, a file name) shown as `\n`, so one error stays one line. */
function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\\n');
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** ['spec', 'items', 2, 'value'] → `spec.items[2].value`; odd keys are quoted: `condition["request.ip"]`. */
export function fieldPath(segments: FieldPath): string {
  if (segments.length === 0) return '';
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (IDENTIFIER.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return shownOnce(out);
}

/**
 * One copy of each path shown, up to SHOWN_LIMIT of them: the config loader keeps a place (with
 * its path) for each document's name and credentials, and built by `+=` each was a chain of pieces,
 * about 100 bytes per document. Past the limit a path is returned in one piece, not kept.
 */
const SHOWN_LIMIT = 10_000;
const shownPaths = internTable<string>(SHOWN_LIMIT);

function shownOnce(path: string): string {
  return shownPaths(path, detached);
}

/** Shown file name: relative to the working directory. */
export function displayFile(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel === '' ? '.' : rel;
}

/** By file, line, column, then path and message, so output is the same on every run. */
export function sortErrors(errors: readonly ConfigError[]): ConfigError[] {
  const seen = new Set<string>();
  const unique = errors.filter((e) => {
    const k = formatError(e);
    return seen.has(k) ? false : (seen.add(k), true);
  });
  return unique.sort((a, b) => compareStrings(a.file, b.file) || a.line - b.line || a.col - b.col || compareStrings(a.path, b.path) || compareStrings(a.message, b.message));
}
