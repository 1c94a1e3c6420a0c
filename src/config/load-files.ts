// A load's pass over its files: in order, the next few read while one is parsed, or shared with a
// helper thread (./load-helper.ts), each file taken by whichever thread is free.

import type { FileDone, LoadPass } from './cache.js';
import type { Discovery } from './files.js';
import type { Env } from './interpolate.js';
import { LoadHelper, type HelperStart } from './load-helper.js';
import type { ReferenceBounds } from './references.js';

/** Files read ahead of the one being parsed: a few, so the reads' waits overlap and memory stays bounded. */
const READ_AHEAD = 4;

type Found = Pick<Discovery, 'files' | 'stamps'>;

/** Each file in turn, the next few read while one is parsed: the disk's waits overlap the parse's work. */
export async function buildInOrder(pass: LoadPass, found: Found, meanwhile: (() => void) | undefined): Promise<FileDone[]> {
  const { files, stamps } = found;
  const done: FileDone[] = [];
  meanwhile?.();
  for (let i = 0; i < Math.min(READ_AHEAD, files.length); i++) pass.prefetch(files[i]!, stamps.get(files[i]!));
  for (let i = 0; i < files.length; i++) {
    if (i + READ_AHEAD < files.length) pass.prefetch(files[i + READ_AHEAD]!, stamps.get(files[i + READ_AHEAD]!));
    done.push(await pass.file(files[i]!, stamps.get(files[i]!)));
  }
  return done;
}

/**
 * The files shared with a helper thread, each taken by whichever thread is free; what each file
 * became, in file order, as one thread would have made it. Files the thread took and did not
 * build (it failed, or left them to this thread) are built here after.
 */
export async function buildTwoThreads(
  pass: LoadPass,
  found: Found,
  start: { env: Env; maxFileBytes: number; limits: HelperStart['limits']; bounds: ReferenceBounds; schemas: string; meanwhile: (() => void) | undefined },
): Promise<FileDone[]> {
  const { files, stamps } = found;
  const { now: _now, ...bounds } = start.bounds;
  let helper: LoadHelper;
  try {
    helper = new LoadHelper(files, start.schemas, { env: { ...start.env }, maxFileBytes: start.maxFileBytes, limits: start.limits, bounds });
  } catch {
    return buildInOrder(pass, found, start.meanwhile);
  }
  try {
    start.meanwhile?.();
    const done: (FileDone | undefined)[] = new Array(files.length);
    let mine = 0;
    // One file taken ahead and its read begun, so this thread does not wait on the disk.
    for (let i = helper.claim(), next = i; i < files.length; i = next, mine++) {
      next = helper.claim();
      if (next < files.length) pass.prefetch(files[next]!, stamps.get(files[next]!));
      done[i] = await pass.file(files[i]!, stamps.get(files[i]!));
    }
    const theirs = await helper.finish(files.length - mine);
    for (const [i, made] of theirs) if (made) done[i] = pass.adopt(files[i]!, stamps.get(files[i]!), made.hash, made.build);
    for (let i = 0; i < files.length; i++) done[i] ??= await pass.file(files[i]!, stamps.get(files[i]!));
    return done as FileDone[];
  } finally {
    // Its files all posted, or the thread ended: stopped either way, so it holds no memory past the load.
    await helper.stop();
  }
}
