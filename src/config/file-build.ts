// One YAML file's text → what its documents became: parsed a document at a time, each checked and
// built at once. The main thread and a load's helper thread (./load-helper.ts) both build so.

import type { ConfigError } from './errors.js';
import { displayFile, fieldPath } from './errors.js';
import { processDocument, type DocumentContext, type DocumentOutcome } from './document.js';
import type { Env } from './interpolate.js';
import { overlaid, type Environment } from './overlays.js';
import { RecordedInputs, type InputStamp } from './stamps.js';
import { parseYamlInTurns, type ParsedDocument, type ParseLimits } from './yaml.js';
import { TurnClock } from '../util/turn.js';

/** The settings a file's outcome depends on besides its bytes: another value, and nothing kept is used. */
export interface FileSettings {
  readonly env: Env;
  readonly maxFileBytes: number;
  readonly limits: ParseLimits;
  readonly document: Omit<DocumentContext, 'inputs'>;
  /** `--env`: the overlays merged over the documents. @default none: the base alone */
  readonly environment?: Environment;
}

/** What one file's documents became, and what their builds read besides the file. */
export interface FileBuild<O = DocumentOutcome> {
  readonly errors: readonly ConfigError[];
  readonly outcomes: readonly O[];
  readonly inputs: readonly InputStamp[];
  /** A document asked for the time or an output path: built again at every load. */
  readonly volatile: boolean;
}

/**
 * `keep` sees each outcome beside its parsed document, and says what is kept of it. A document whose build
 * answers later (KvPairs) is awaited after the parse, and the documents after it are built after it, in order:
 * one such build at a time, each outcome in its document's place. The event loop gets a turn between documents
 * when `turns` says one is due (one clock for a load's files: its turns come by time, not per file).
 */
export async function buildFile<O = DocumentOutcome>(
  file: string,
  text: string,
  settings: FileSettings,
  keep: (outcome: DocumentOutcome, doc: ParsedDocument) => O = (outcome) => outcome as O,
  turns: TurnClock = new TurnClock(),
): Promise<FileBuild<O>> {
  const display = displayFile(file);
  const inputs = new RecordedInputs();
  const context = { ...settings.document, inputs };
  const outcomes: O[] = [];
  const { environment } = settings;
  const processed = (doc: ParsedDocument) => (environment ? overlaid(environment, doc, file, display, context) : processDocument(doc, file, display, context));
  // From the first build that answers later: that build, then the documents parsed after it, still to build.
  const later: (ParsedDocument | { doc: ParsedDocument; outcome: Promise<DocumentOutcome> })[] = [];
  const problems = await parseYamlInTurns(
    text,
    settings.env,
    settings.limits,
    (doc) => {
      if (later.length) return void later.push(doc);
      const outcome = processed(doc);
      if (outcome instanceof Promise) later.push({ doc, outcome });
      else outcomes.push(keep(outcome, doc));
    },
    turns,
  );
  for (const next of later) {
    await turns.pace();
    const doc = 'outcome' in next ? next.doc : next;
    const outcome = 'outcome' in next ? next.outcome : processed(doc);
    outcomes.push(keep(outcome instanceof Promise ? await outcome : outcome, doc));
  }
  const errors: ConfigError[] = problems.map((e) => ({ file: display, line: e.line, col: e.col, path: fieldPath(e.path), message: e.message }));
  return { errors, outcomes, inputs: inputs.inputs, volatile: inputs.volatile };
}
