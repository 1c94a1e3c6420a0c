// A large JSON array source read for the plan with a reader thread that only cuts it into elements (the
// library's tokenizer, a byte at a time, on a core of its own), while this thread parses them at those bytes.

import fs from 'node:fs';
import { SpanReader } from './element-bounds.js';
import { bareKeyEnd } from './pair.js';
import { planBatches, wholeFileError, type PlanBatchOptions, type Stream } from './plan-batches.js';
import { SourceReadError, type SourceItem } from './stream-shared.js';
import type { TurnCounter } from '../../util/turn.js';

/**
 * The array's elements in order, each handed to `each` parsed, with its bytes [from, end) and text, as a read in
 * this thread gives them but for line and column (0 and none); an element that is a bare pair's JSON as sent
 * (bareKeyEnd) comes unparsed, as its `bytes`, valid until the next is taken. A batch of elements is handed over
 * at once, and the next awaited (a Promise per element would cost more than its parse); the event loop gets a
 * turn whenever `turns` says. A problem of the file is
 * the SourceReadError a whole read throws, at the same element: where an element is not JSON, the file is read
 * again up to it for that message.
 */
export async function threadedJsonItems(stream: Stream, reading: PlanBatchOptions | undefined, each: (item: SourceItem) => void, turns: TurnCounter): Promise<void> {
  const fd = fs.openSync(stream.file, 'r');
  try {
    const spans = new SpanReader(fd);
    let index = 0;
    for await (const batch of planBatches(stream, 0, 0, reading)) {
      for (let i = 0; i < batch.count; i++, index++) {
        if (turns.due()) await turns.turn();
        const from = batch.bounds[2 * i];
        const end = batch.bounds[2 * i + 1];
        const bytes = spans.bytes(from, end);
        // A bare pair's element is taken as its bytes: checked, hashed and measured without a string or a parse.
        if (bytes && bareKeyEnd(bytes, 0, bytes.length) >= 0) {
          each({ value: undefined, index, line: 0, from, end, bytes });
          continue;
        }
        const text = bytes?.toString('utf8');
        let value: unknown;
        try {
          value = JSON.parse(text ?? '');
        } catch {
          throw new SourceReadError(wholeFileError(stream, index) ?? `${stream.name}[${index}]: not valid JSON`);
        }
        each({ value, index, line: 0, from, end, text });
      }
      if (batch.end?.thrown !== undefined) throw new Error(batch.end.thrown);
      if (batch.end?.readError !== undefined) throw new SourceReadError(batch.end.readError);
    }
  } finally {
    fs.closeSync(fd);
  }
}
