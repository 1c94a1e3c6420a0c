// A load's helper thread (./load-helper.ts): started with the schemas, then given the files; takes
// them from the shared counter until none is left, and posts each one's build, or leaves it.

import '../util/background.js';
import { parentPort, workerData } from 'node:worker_threads';
import '../kinds/index.js';
import { allKinds } from '../kinds/registry.js';
import { postedStringsOnly, sha256 } from '../util/json.js';
import { toSent, type SentOutcome } from './crossing.js';
import { ENVELOPE_SCHEMA } from './document.js';
import { buildFile, type FileBuild, type FileSettings } from './file-build.js';
import { readTextBounded } from './files.js';
import type { HelperMessage, HelperStart } from './load-helper.js';
import { createSchemaValidator } from './schema.js';

postedStringsOnly();
/** Started with its schemas only, ahead of a load (see prestartLoadHelper): it compiles them while it waits for the files. */
const validator = createSchemaValidator((workerData as { schemas: string }).schemas);
// Each kind's schema and the envelope compiled now (ajv keeps what it compiled), before any file is given.
for (const file of [ENVELOPE_SCHEMA, ...allKinds().map((def) => def.schema)]) if (validator.has(file)) validator.ajv.getSchema(file);

parentPort!.once('message', (start: HelperStart) => void run(start));

async function run(start: HelperStart): Promise<void> {
  const counter = new Int32Array(start.counter);
  const settings: FileSettings = {
    env: start.env,
    maxFileBytes: start.maxFileBytes,
    limits: start.limits,
    // A build that asks for the time is volatile, and so the main thread's: this clock is never used.
    document: { validator, bounds: { ...start.bounds, now: Date.now } },
  };
  const built = async (index: number): Promise<HelperMessage> => {
    const file = start.files[index]!;
    // Unreadable, or too large: the main thread reads it again and says why.
    const got = await readTextBounded(file, start.maxFileBytes).catch(() => undefined);
    if (got === undefined || !('text' in got)) return { index };
    const build = await buildFile(file, got.text, settings, toSent);
    if (build.volatile || build.outcomes.some((o) => o === undefined)) return { index };
    return { index, made: { hash: sha256(got.text), build: build as FileBuild<SentOutcome> } };
  };
  for (let i = Atomics.add(counter, 0, 1); i < start.files.length; i = Atomics.add(counter, 0, 1)) parentPort!.postMessage(await built(i));
}
