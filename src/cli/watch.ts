// `edgesync watch`: reconcile on start and on every change under the root until SIGTERM/SIGINT,
// serving /healthz, /readyz, /metrics and /status. Exit 0 on a clean stop, 1 when it cannot start.

import { Option, type Command } from 'commander';
import { createLogger } from '../log.js';
import { checkInteger, OptionError } from '../util/options.js';
import { checkAllowedHost } from '../util/host-check.js';
import type { Daemon } from '../daemon/index.js';
import type { WatchOptions } from '../daemon/run.js';
import { parseDuration, parseListen } from '../daemon/options.js';
import { readUiToken } from '../daemon/ui/access.js';
import { boundHeapGrowth, HEAP_GROWTH_PERCENT } from '../daemon/heap.js';
import type { Logger } from '../log.js';
import {
  givenAs,
  pruneOf,
  remoteOptions,
  thresholdsOf,
  withConfigAndState,
  withExpiryWarning,
  withPrune,
  withRemote,
  withThresholds,
  type ExecOptions,
  type PruneFlags,
  type ThresholdOptions,
} from './common.js';
import { parseLogFormat } from './notices.js';
import { notifyTargets, parseRepeat } from '../notify/receivers.js';
import path from 'node:path';
import { gitSource } from '../config/git/source.js';
import { GitError } from '../config/git/run.js';
import { gitWatch, withGit, type GitFlags } from './git.js';

/** The flags of `edgesync watch`, as commander hands them over. */
export interface WatchFlags extends ExecOptions, Partial<ThresholdOptions>, Partial<GitFlags>, PruneFlags {
  readonly debounce: string;
  readonly listen: string;
  /** Seconds. */
  readonly shutdownTimeout: string;
  readonly allowEmpty?: boolean;
  /** Repeatable. */
  readonly notify?: string[];
  readonly notifyRepeat: string;
  /** A duration such as 6h; absent: no resync. */
  readonly resyncInterval?: string;
  /** A duration such as 10m; absent: no drift check. */
  readonly driftInterval?: string;
  /** Drift a check finds is corrected at once; absent: held for a person. */
  readonly correctDrift?: boolean;
  /** A duration such as 10m; absent: the daemon's default. */
  readonly fullReloadInterval?: string;
  /** The status page's token; absent: open on loopback, health checks only elsewhere. */
  readonly uiTokenFile?: string;
  /** Host names the endpoint answers besides this machine's own (repeatable). */
  readonly allowedHost?: readonly string[];
  /** Percent the heap may grow past what a full collection left (src/daemon/heap.ts); 0: V8's own rule. */
  readonly heapGrowth?: string;
}

const numeric = (text: string): number | string => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text);

/** Every flag checked, and the token read, before anything opens. */
export function watchOptions(flags: WatchFlags, logger: Logger, env: NodeJS.ProcessEnv = process.env): WatchOptions {
  const root = remoteOptions(flags, env);
  const git = gitWatch({ ...flags, interval: flags.interval ?? '1m' }, root.state, env);
  return {
    // A git source's checkout is put back to its commit at each sync: outputs go beside the state unless told.
    root: git ? { ...root, source: gitSource(git.checkout, flags.env), outputsDir: root.outputsDir ?? path.join(root.state.localDir, 'outputs') } : root,
    ...(git && { git }),
    listen: parseListen(flags.listen, givenAs(flags, 'listen', '--listen')),
    ...(flags.uiTokenFile !== undefined && { uiToken: readUiToken(flags.uiTokenFile) }),
    ...(flags.allowedHost?.length && { allowedHosts: flags.allowedHost.map((h) => checkAllowedHost('--allowed-host', h)) }),
    timing: {
      debounceMs: checkInteger('--debounce', numeric(flags.debounce), 0, 3_600_000),
      shutdownTimeoutMs: checkInteger('--shutdown-timeout', numeric(flags.shutdownTimeout), 0, 3600) * 1000,
      ...(flags.resyncInterval !== undefined && { resyncIntervalMs: parseDuration('--resync-interval', flags.resyncInterval) }),
      ...(flags.driftInterval !== undefined && { driftIntervalMs: parseDuration('--drift-interval', flags.driftInterval) }),
      ...(flags.fullReloadInterval !== undefined && { fullReloadIntervalMs: parseDuration('--full-reload-interval', flags.fullReloadInterval) }),
    },
    allowEmpty: flags.allowEmpty === true,
    ...(flags.correctDrift && { correctDrift: checkCorrectDrift(flags) }),
    notify: { targets: notifyTargets(flags.notify, env.EDGESYNC_NOTIFY), repeatMs: parseRepeat(flags.notifyRepeat ?? '1h') },
    thresholds: thresholdsOf({
      maxUpdateShare: flags.maxUpdateShare ?? '30',
      maxKvShare: flags.maxKvShare ?? '30',
      maxDeleteShare: flags.maxDeleteShare ?? '10',
      maxDeletes: flags.maxDeletes ?? '50',
    }),
    ...((flags.prune || flags.protect?.length) && { prune: pruneOf(flags) }),
    logger,
  };
}

export function register(program: Command): void {
  withPrune(withGit(withExpiryWarning(withThresholds(withRemote(withConfigAndState(program.command('watch')))))))
    .description('keep applying the config: on start and on every change under the root, until stopped')
    .option('--debounce <ms>', 'quiet time after a change before reconciling', '500')
    .addOption(
      new Option('--listen <host:port>', 'address of the status page (/), /healthz, /readyz, /metrics and /status (port 0: any free port)')
        .default('127.0.0.1:9300')
        .env('EDGESYNC_LISTEN'),
    )
    .option(
      '--ui-token-file <file>',
      'file holding a token that the status page, /status and /metrics ask for (a bearer token, or a cookie from /login?token=); needed to serve them on a non-loopback --listen',
    )
    .option(
      '--allowed-host <name>',
      "also answer this Host name (NAME, or NAME:PORT), e.g. a reverse proxy's; a loopback --listen without --ui-token-file answers only localhost, 127.0.0.1 and [::1], 421 to any other (repeatable)",
      (h: string, all: string[] = []) => [...all, h],
    )
    .option('--shutdown-timeout <seconds>', 'how long calls in flight may finish after SIGTERM', '10')
    .option(
      '--notify <url>',
      'POST events (failures, recoveries, applied revisions…) as JSON to this http(s) URL, or to Slack with slack+https://hooks.slack.com/…; repeatable (else EDGESYNC_NOTIFY, comma-separated)',
      (url: string, all: string[] = []) => [...all, url],
    )
    .option('--notify-repeat <duration>', 'do not send the same event for the same cause again within this (e.g. 30m, 1h, 0 for every time)', '1h')
    .option('--resync-interval <duration>', 'also re-send every re-sendable applied resource this often (e.g. 6h; at least 1m), overwriting changes made by hand (default: never)')
    .option(
      '--drift-interval <duration>',
      'read what is there this often (e.g. 10m; at least 1m) and report what changed outside edgesync: logged, notified (drift_detected), on /status and the status page (default: never)',
    )
    .option(
      '--correct-drift',
      'with --drift-interval: bring back what a check finds at once (else the correction is held until the files change or `edgesync apply --force` approves it)',
    )
    .option('--full-reload-interval <duration>', 'read every config file again from scratch this often (at least 1m; between, a change reads only the files that changed)', '10m')
    .option(
      '--heap-growth <percent>',
      "collect garbage once the heap grew this much past what the last full collection left (0: V8's own rule, which lets a long-running heap reach several times its live size)",
      String(HEAP_GROWTH_PERCENT),
    )
    .option('--allow-empty', 'apply even a config that has no document or would orphan most of the state (else the daemon holds)')
    .option('--log-level <level>', 'trace, debug, info, warn or error (else LOG_LEVEL, else info)')
    .option('--log-format <format>', 'json or pretty (default: pretty on a terminal, else json)')
    .option('--pretty', 'the same as --log-format pretty')
    .action(async (flags: WatchFlags & { logLevel?: string; pretty?: boolean; logFormat?: string }) => {
      // Loaded on use: the daemon brings fastify, chokidar and prom-client, which other commands never need.
      const [{ nextStopSignal, startWatch }, { TokenError }, { StateLockedError }] = await Promise.all([
        import('../daemon/run.js'),
        import('../api/index.js'),
        import('../state/index.js'),
      ]);
      // A service's log goes to a collector: JSON unless a person watches it on a terminal.
      const format = flags.pretty ? 'pretty' : parseLogFormat(flags.logFormat, process.stderr.isTTY === true ? 'pretty' : 'json');
      const logger = createLogger({ ...(flags.logLevel && { level: flags.logLevel }), pretty: format === 'pretty' });
      const stopped = nextStopSignal();
      let daemon: Daemon | undefined;
      // SIGHUP reloads: the config is read again and reconciled now (a service manager's reload).
      const onHangup = () => {
        if (!daemon) return logger.info({ signal: 'SIGHUP' }, 'SIGHUP during start-up: the first reconcile reads the config anyway');
        logger.info({ signal: 'SIGHUP' }, 'SIGHUP received: reloading the config');
        daemon.reload();
      };
      process.on('SIGHUP', onHangup);
      try {
        const options = watchOptions(flags, logger);
        boundHeapGrowth(numeric(flags.heapGrowth ?? String(HEAP_GROWTH_PERCENT)) as number);
        daemon = await startWatch(options);
      } catch (err) {
        process.off('SIGHUP', onHangup);
        if (!(err instanceof StateLockedError || err instanceof OptionError || err instanceof TokenError || err instanceof GitError || isListenError(err))) throw err;
        logger.fatal({}, err.message);
        process.exitCode = 1;
        return;
      }
      const signal = await stopped;
      logger.info({ signal }, `${signal} received`);
      // A second signal does not cut the calls in flight short: their answers (a create's id, a
      // token's secret) exist nowhere else. The shutdown timeout bounds the wait.
      const again = () => logger.warn({}, 'signal received again: still waiting for the calls in flight, at most --shutdown-timeout');
      process.on('SIGTERM', again).on('SIGINT', again);
      const finished = await daemon.stop();
      process.off('SIGHUP', onHangup);
      // Past the bound, a call still in flight would keep the process alive: its intent stays
      // open and the next start reports that create as uncertain.
      if (!finished) process.exit(0);
      process.exitCode = 0;
    });
}

/** `--correct-drift` corrects what a drift check finds: without `--drift-interval` there is none. */
function checkCorrectDrift(flags: WatchFlags): true {
  if (flags.driftInterval === undefined) throw new OptionError('--correct-drift needs --drift-interval (e.g. --drift-interval 10m): it corrects what a drift check finds');
  return true;
}

function isListenError(err: unknown): err is Error {
  return err instanceof Error && ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes((err as NodeJS.ErrnoException).code ?? '');
}
