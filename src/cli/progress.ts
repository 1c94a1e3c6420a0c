// KV progress: a bar on a terminal (pairs, bytes, rate, ETA), periodic lines when not on one.
// Fed by the executor's hooks; knows nothing of KV beyond the counts it is given.

import type { Clock } from '../util/clock.js';
import { formatCount } from '../util/format.js';

export interface ProgressOptions {
  readonly total: { readonly pairs: number; readonly bytes: number };
  /** Where the bar or lines go. */
  readonly write: (text: string) => void;
  /** A redrawn bar (true) or a line every `intervalMs` (false). */
  readonly tty: boolean;
  readonly clock: Clock;
  /** Between two lines when not on a terminal. @default 10_000 */
  readonly intervalMs?: number;
}

export interface Progress {
  advance(pairs: number, bytes: number): void;
  finish(): void;
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

function eta(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function createProgress(options: ProgressOptions): Progress {
  const { total, write, tty, clock } = options;
  const interval = options.intervalMs ?? 10_000;
  const started = clock.now();
  let pairs = 0;
  let bytes = 0;
  let lastLine = started;

  const line = (): string => {
    const elapsed = Math.max(clock.now() - started, 1) / 1000;
    const rate = pairs / elapsed;
    const share = total.pairs ? pairs / total.pairs : 1;
    const left = rate > 0 ? (total.pairs - pairs) / rate : Number.POSITIVE_INFINITY;
    const counts = `${formatCount(pairs)}/${formatCount(total.pairs)} pairs  ${mb(bytes)}/${mb(total.bytes)} MB  ${formatCount(Math.round(rate))} pairs/s  ETA ${eta(left)}`;
    if (!tty) return `KV progress: ${counts} (${Math.floor(share * 100)}%)`;
    const width = 24;
    const filled = Math.round(share * width);
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${counts}`;
  };

  return {
    advance(p, b) {
      pairs += p;
      bytes += b;
      if (tty) write(`\r${line()}\x1b[K`);
      else if (clock.now() - lastLine >= interval) {
        lastLine = clock.now();
        write(line() + '\n');
      }
    },
    finish() {
      if (total.pairs === 0) return;
      write(tty ? `\r${line()}\x1b[K\n` : line() + '\n');
    },
  };
}
