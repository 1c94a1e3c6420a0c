// `edgesync state migrate`: copies a state to another backend or workspace, record by record from
// one consistent read of the source (never written), then reads the target back and compares counts.

import { Counter, checkEmpty, countsDiffer, countsOf, readRecords, writeRecord, type Counts } from './records.js';
import { backendOf, intoEmptyState, openSource, readCounts, type StateSpec } from './target.js';

export interface MigrateOptions {
  /** KV keys written per statement. @default 10000 */
  readonly kvKeysPerRecord?: number;
}

export interface Migrated {
  /** The source and the target as messages name them (never with a password). */
  readonly from: string;
  readonly to: string;
  /** Read back from the target by a reader of its own after the copy committed; the same as the source's. */
  readonly counts: Counts;
  /** Requests that lost hashes of secret texts on the way (recorded by an older edgesync). */
  readonly redacted: number;
  /** Token secrets the source keeps in its database: never copied (each is bound to its workspace). */
  readonly keptSecrets: number;
}

export async function migrateState(from: StateSpec, to: StateSpec, options: MigrateOptions = {}): Promise<Migrated> {
  const perRecord = options.kvKeysPerRecord ?? 10_000;
  const [source, target] = [backendOf(from), backendOf(to)];
  if (source.shown === target.shown) throw new Error(`--to names the state being copied (${source.shown}): name another file, database or --to-workspace`);
  const reader = await openSource(source, 'migrate');
  let copied: Counts & { redacted: number; keptSecrets: number };
  try {
    copied = await intoEmptyState(to, 'edgesync state migrate', 'migrate', (store) =>
      reader.withStatements('read', (src) =>
        store.withStatements('write', async (dst) => {
          await checkEmpty(dst, target.shown, 'migrate');
          const counter = new Counter();
          for await (const record of readRecords(src, perRecord, counter)) await writeRecord(dst, record);
          const meant = counter.tally();
          const differ = countsDiffer(meant, await countsOf(dst));
          if (differ) throw new Error(`${target.shown} would hold ${differ}; nothing was copied`);
          return { ...meant, keptSecrets: Number(await src.keptSecrets.get()) };
        }),
      ),
    );
  } finally {
    await reader.close();
  }
  const counts = await readCounts(target);
  const differ = counts ? countsDiffer(copied, counts) : 'nothing';
  if (differ) throw new Error(`${target.shown}, read back after the copy, holds ${differ}: do not use it; delete it and migrate again`);
  return { from: source.shown, to: target.shown, counts: counts!, redacted: copied.redacted, keptSecrets: copied.keptSecrets };
}
