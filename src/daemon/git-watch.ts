// `watch --git`: the first sync before anything else (no checkout at all ends the start), then the
// follower, reloading the daemon at each new commit, and the push webhook when a secret is set.

import type { FastifyInstance } from 'fastify';
import { GitError } from '../config/git/run.js';
import type { GitCheckout } from '../config/git/checkout.js';
import type { Clock } from '../util/clock.js';
import { followGit, type FollowOptions, type Follower, type FollowStatus } from './git-follow.js';
import type { LoopLogger } from './loop-types.js';
import { registerGitHook } from './webhook.js';

export interface GitSourceOptions {
  readonly checkout: Pick<GitCheckout, 'shown' | 'sync' | 'current'>;
  readonly ref: string;
  readonly intervalMs: number;
  readonly webhookSecret?: string;
}

/** What /status says of the git source. */
interface GitSourceStatus extends FollowStatus {
  readonly git: string;
  readonly ref: string;
  readonly intervalMs: number;
  readonly webhook: boolean;
}

export interface GitWatching {
  /** Called at each new commit after the first: set once the daemon runs. */
  onCommit: () => void;
  /** The endpoint's push webhook, when a secret is set: rate-limited, and never cutting a failure's backoff short. */
  readonly routes?: (app: FastifyInstance) => void;
  status(): GitSourceStatus;
  /** Fetches now (SIGHUP), even during a failure's backoff, which a push webhook never cuts short. */
  syncNow(): void;
  stop(): Promise<void>;
}

export async function watchGit(options: GitSourceOptions, clock: Clock, logger: LoopLogger, onSync?: FollowOptions['onSync']): Promise<GitWatching> {
  const watching: { onCommit: () => void } = { onCommit: () => {} };
  const follower: Follower = await followGit({
    checkout: options.checkout,
    intervalMs: options.intervalMs,
    clock,
    logger,
    onCommit: () => watching.onCommit(),
    ...(onSync && { onSync }),
  });
  const { commit, error } = follower.status();
  // A failed first sync leaves the last good checkout in force after a restart; with none, there is nothing to apply.
  if (commit === undefined && (await options.checkout.current()) === undefined) {
    await follower.stop();
    throw new GitError(error ?? `nothing is checked out from ${options.checkout.shown}`);
  }
  const secret = options.webhookSecret;
  return Object.assign(watching, {
    ...(secret !== undefined && { routes: (app: FastifyInstance) => registerGitHook(app, { secret, ref: options.ref, onPush: () => follower.pushed() }) }),
    status: (): GitSourceStatus => ({ git: options.checkout.shown, ref: options.ref, intervalMs: options.intervalMs, webhook: secret !== undefined, ...follower.status() }),
    syncNow: () => follower.syncNow(),
    stop: () => follower.stop(),
  });
}
