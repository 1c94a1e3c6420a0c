// The YAML parser's errors in plain words, each with its fix, at the line the mistake is on: the
// parser names what it could not read ("Nested mappings are not allowed in compact mappings"),
// often a line after the mistake (an unclosed quote is found at the end of the document), and
// often three times for one mistake. One message per line, the first the parser gives.

import type { LineCounter, YAMLError } from 'yaml';
/** A place in a file, 1-based (yaml.ts's Position has this shape; it imports this module). */
interface Position {
  readonly line: number;
  readonly col: number;
}

/** A parser error said for people: where the mistake is and what to do. */
export interface YamlProblem extends Position {
  readonly message: string;
}

/** The text of the stream, with what is needed to read its lines. */
class Lines {
  constructor(
    private readonly source: string,
    private readonly counter: LineCounter,
  ) {}

  at(offset: number): Position {
    return this.counter.linePos(offset);
  }

  /** Line `n` (1-based) without its line break; '' past the end. */
  text(n: number): string {
    const starts = this.counter.lineStarts;
    if (n < 1 || n > starts.length) return '';
    return this.source.slice(starts[n - 1]!, starts[n] ?? this.source.length).replace(/\r?\n$/, '');
  }

  /** Where the text of line `n` starts, past its indentation. */
  start(n: number): Position {
    return { line: n, col: indentOf(this.text(n)) + 1 };
  }
}

const indentOf = (line: string): number => /^[ \t]*/.exec(line)![0].length;

const spaces = (n: number): string => (n === 1 ? '1 space' : `${n} spaces`);

/** The field whose value starts at `col` of `line` (`name` of `  name: a: b`), if the text before it is `name:`. */
function fieldBefore(line: string, col: number): string | undefined {
  return /(?:^|[\s{,[])-?\s*("[^"]*"|'[^']*'|[^\s:#][^:#]*?)\s*:\s*$/.exec(line.slice(0, col - 1))?.[1];
}

/** The nearest line at or before `from` where `open` starts a value not closed on that line: where an unclosed quote or bracket began. */
function opened(lines: Lines, from: number, open: string, close: string): Position | undefined {
  for (let n = from; n >= 1; n--) {
    const line = lines.text(n);
    for (let i = line.length - 1; i >= 0; i--) {
      if (line[i] !== open) continue;
      // A value's opening: after `key: `, `- `, `[`, `{`, `,` or at the line's start.
      if (!/(^|[:\-,[{]\s*|^\s*)$/.test(line.slice(0, i))) continue;
      const rest = line.slice(i + 1);
      const closed = open === close ? new RegExp(open === '"' ? '(^|[^\\\\])"' : "'").test(rest) : rest.includes(close);
      if (!closed) return { line: n, col: i + 1 };
    }
  }
  return undefined;
}

/** The first key a line holds: `a` of `a: 1`, `- a: 1` or `"a": 1`. */
function keyOf(line: string): string | undefined {
  return /^\s*(?:-\s+)?("[^"]*"|'[^']*'|[^\s:#][^:#]*?)\s*:(\s|$)/.exec(line)?.[1];
}

/**
 * Each error in plain words at the line of the mistake; one per line, the first the parser gives.
 * `other`: the words for an error with no plainer ones (the parser's, or the depth bound).
 */
export function describeYamlErrors(errors: readonly YAMLError[], text: string, counter: LineCounter, other: (e: YAMLError) => string): YamlProblem[] {
  const lines = new Lines(text, counter);
  const out: YamlProblem[] = [];
  const said = new Set<number>();
  for (const e of errors) {
    // The parser's "nested mapping" error at an over-indented line comes with a multi-line key at the same place: said by that one.
    if (e.code === 'BLOCK_AS_IMPLICIT_KEY' && errors.some((m) => m.code === 'MULTILINE_IMPLICIT_KEY' && m.pos[0] === e.pos[0] && lines.at(m.pos[1]).line > lines.at(m.pos[0]).line))
      continue;
    const problem = describeOne(e, lines, other);
    if (said.has(problem.line)) continue;
    said.add(problem.line);
    out.push(problem);
  }
  return out;
}

function describeOne(e: YAMLError, lines: Lines, other: (e: YAMLError) => string): YamlProblem {
  const at = lines.at(e.pos[0]);
  const line = lines.text(at.line);
  const here = (message: string, where: Position = at): YamlProblem => ({ ...where, message });
  const message = e.message.split('\n')[0]!;
  // `Flow sequence must end with a ]` (MISSING_CHAR at the top level, BAD_INDENT under a field).
  const flow = /^Flow (sequence|map)\b.* end with a/.exec(message);
  if (flow) {
    const [open, close, what] = flow[1] === 'sequence' ? ['[', ']', 'list'] : ['{', '}', 'map'];
    return here(
      `the ${what} opened with "${open}" here is not closed: end it with "${close}", or indent its next lines deeper than its field`,
      opened(lines, at.line, open, close) ?? at,
    );
  }
  switch (e.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
      if (/block sequence/.test(message)) {
        // After another item, it is out of line with its list; else it is a list where fields are.
        if (!/^\s*-(\s|$)/.test(lines.text(lineAbove(lines, at.line)))) return missingColon('- ', lines.start(at.line), here);
        return here('this list item ("- …") does not line up with the list it belongs to: start every "-" of one list at the same column', lines.start(at.line));
      }
      return compactMapping(line, at, here);
    case 'MULTILINE_IMPLICIT_KEY': {
      const end = lines.at(e.pos[1]);
      const field = fieldBefore(line, at.col);
      // The value of `field:` ran on into the next lines: one of them is indented deeper than its siblings.
      if (field !== undefined && end.line > at.line) {
        const deeper = lastLineWithColon(lines, at.line + 1, end.line);
        return here(
          `this line is indented deeper than "${field}" above it, so YAML reads it as more of ${field}'s value: indent it as "${field}" is (${spaces(indentOf(line))})`,
          lines.start(deeper),
        );
      }
      return missingColon(line, lines.start(at.line), here);
    }
    case 'MISSING_CHAR':
      if (/^Missing closing (["'])quote/.test(message)) {
        const quote = message.includes('"') ? '"' : "'";
        const where = opened(lines, at.line, quote, quote) ?? at;
        const inside = quote === '"' ? 'a " inside it is written \\"' : "a ' inside it is written ''";
        return here(`the value quoted with ${quote} here is never closed: add the closing ${quote} (${inside})`, where);
      }
      if (/Implicit map keys need to be followed by map values/.test(message)) return missingColon(line, lines.start(at.line), here);
      if (/Comments must be separated/.test(message)) return here('a "#" starts a comment only after a space: put a space before it, or quote the value that holds it');
      if (/Missing .* between|Missing space after :/.test(message)) {
        return here('inside [ ] or { }, separate items with commas, and write each field "name: value" with a space after the colon');
      }
      if (/Sequence item without - indicator/.test(message))
        return here('this line is in a list but does not start with "- ": add it, or indent the line under the item it belongs to');
      break;
    case 'BAD_INDENT':
      if (/All mapping items must start at the same column/.test(message)) return misaligned(lines, at.line, 'field', 'fields of one map', here);
      if (/All sequence items must start at the same column/.test(message)) return misaligned(lines, at.line, 'list item', 'items of one list ("-")', here);
      break;
    case 'TAB_AS_INDENT':
      return here('this line is indented with a tab, and YAML indents with spaces only: replace the tab with spaces', { line: at.line, col: 1 });
    case 'DUPLICATE_KEY': {
      const key = keyOf(line);
      const first = key === undefined ? undefined : earlierKey(lines, at.line, key, indentOf(line));
      return here(
        `${key === undefined ? 'this field' : `field ${key.startsWith('"') || key.startsWith("'") ? key : `"${key}"`}`} is written twice in one map${first ? ` (first at line ${first})` : ''}: keep one`,
      );
    }
    case 'BAD_SCALAR_START': {
      const char = /character (\S)/.exec(message)?.[1] ?? 'this character';
      return here(`a value cannot start with ${char} unquoted: put it in quotes`);
    }
    case 'BAD_DQ_ESCAPE': {
      const sequence = /sequence (\S+)/.exec(message)?.[1] ?? 'this';
      return here(`${sequence} is no escape in a value quoted with ": write \\\\ for a backslash, or quote the value with ' instead`);
    }
    case 'BLOCK_IN_FLOW':
      return here('a "-" list or a "name: value" map cannot be written inside [ ] or { }: separate items with commas (is one missing?), or write the whole value with indentation');
    case 'KEY_OVER_1024_CHARS':
      return here('the ":" after a field name must come within 1024 characters of its start: is a ":" missing?');
    case 'RESOURCE_EXHAUSTION':
      // The parser's stack ran out, or an alias expanded too far: said as the bound it is past.
      return here(other(e));
    default:
      break;
  }
  return here(`YAML cannot read this (${other(e)}): check this line's indentation, and that each field is written "name: value"`);
}

/** `name: a: b`: the value holds ": ", read as another field. */
function compactMapping(line: string, at: Position, here: (m: string, w?: Position) => YamlProblem): YamlProblem {
  const field = fieldBefore(line, at.col);
  const value = line
    .slice(at.col - 1)
    .replace(/\s+#.*$/, '')
    .trimEnd();
  const quoted = JSON.stringify(value);
  return here(
    `this value holds ": " (a colon and a space), which YAML reads as the start of another field: quote it${field !== undefined ? `, as ${field}: ${quoted}` : ` (${quoted})`}`,
  );
}

/** `name x`: a line with no `: `, or a key running over lines; `- item` where fields are. */
function missingColon(line: string, start: Position, here: (m: string, w?: Position) => YamlProblem): YamlProblem {
  const written = line.trim().replace(/\s+#.*$/, '');
  if (/^-(\s|$)/.test(written)) {
    return here('a list item ("- …") among fields: a list is the value of a field, on the lines under it and indented deeper ("items:" then "  - …")', start);
  }
  return here(`"${written}" is not written "name: value": add the ":" after the field's name (with a space after it), or indent the line under the field it belongs to`, start);
}

/** The last line from `from` to `to` that holds `: `: where an over-indented field is. */
function lastLineWithColon(lines: Lines, from: number, to: number): number {
  for (let n = to; n >= from; n--) if (/:(\s|$)/.test(lines.text(n))) return n;
  return from;
}

/** The nearest line above `n` that is not blank or a comment; 0 when there is none. */
function lineAbove(lines: Lines, n: number): number {
  let above = n - 1;
  while (above >= 1 && /^\s*(#.*)?$/.test(lines.text(above))) above--;
  return above;
}

/** A field or list item indented unlike the ones before it: says the indentation of the line above it. */
function misaligned(lines: Lines, n: number, what: string, siblings: string, here: (m: string, w?: Position) => YamlProblem): YamlProblem {
  const above = lineAbove(lines, n);
  const line = lines.text(n);
  const was = above >= 1 ? ` (this line has ${spaces(indentOf(line))} before it, the line above ${spaces(indentOf(lines.text(above)))})` : '';
  return here(`this ${what} does not line up with the ones before it${was}: give the ${siblings} the same indentation`, lines.start(n));
}

/** The line before `n` where `key` is written at the same indentation: the first of a duplicate. */
function earlierKey(lines: Lines, n: number, key: string, indent: number): number | undefined {
  for (let m = n - 1; m >= 1; m--) {
    const line = lines.text(m);
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (indentOf(line) < indent) return undefined;
    if (indentOf(line) === indent && keyOf(line) === key) return m;
  }
  return undefined;
}
