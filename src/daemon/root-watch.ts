// Keeping the watch on a config root that is removed, renamed away or replaced: the root's identity
// is polled, and when it changes the watcher is closed and, once a root is there again, started anew.

import fs from 'node:fs';
import path from 'node:path';
import type { ChangeSource, WatchFactory, WatchRequest } from './watcher.js';

export interface RootWatchRequest extends WatchRequest {
  readonly factory: WatchFactory;
  /** How often the root's identity is checked. */
  readonly pollMs: number;
  /** The root is gone: nothing under it is watched until it comes back. */
  readonly onGone: () => void;
  /** A root is there again (the same folder back, or another in its place), watched anew. */
  readonly onBack: () => void;
}

/** `dev:ino` of the root folder, or undefined when there is none. */
function identityOf(root: string): string | undefined {
  try {
    const stat = fs.statSync(root);
    return stat.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A watcher over `request.root` that survives the root going away: a file watcher follows the folder it
 * opened, so once the root is renamed or deleted it never reports edits under the path again.
 */
export function watchRootThroughRemoval(request: RootWatchRequest): ChangeSource {
  const root = path.resolve(request.root);
  let seen = identityOf(root);
  let current: ChangeSource | undefined;
  let checking: Promise<void> = Promise.resolve();
  let closed = false;

  const start = () => {
    current = request.factory({
      root,
      ignored: request.ignored,
      ...(request.onError && { onError: request.onError }),
      onChange: (file) => {
        // The root itself removed: look now rather than at the next poll.
        if (path.resolve(file) === root) check();
        request.onChange(file);
      },
    });
    return current.ready;
  };

  const recheck = async () => {
    const now = identityOf(root);
    if (now === seen || closed) return;
    seen = now;
    const old = current;
    current = undefined;
    await old?.close();
    if (now === undefined) return request.onGone();
    await start();
    if (!closed) request.onBack();
  };
  const check = () => {
    checking = checking.then(recheck, recheck);
  };

  const ready = seen === undefined ? Promise.resolve() : start();
  const timer = setInterval(check, request.pollMs);
  timer.unref();
  return {
    ready,
    async close() {
      closed = true;
      clearInterval(timer);
      await checking.catch(() => {});
      await current?.close();
    },
  };
}
