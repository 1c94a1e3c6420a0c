// Loaded by `node --import` into an edgesync command the resources benchmark runs: at exit, the process's peak RSS
// and CPU time as one JSON line on file descriptor 3, the bench's pipe, so the command itself runs unchanged.

import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** What the probe writes. */
export interface ProbeReport {
  /** process.resourceUsage().maxRSS is in KiB. */
  readonly maxRssBytes: number;
  /** User + system CPU time of the whole process, start-up included. */
  readonly cpuMs: number;
}

// `--import` loads it into every thread too (a load's helper): the process's figures are the main thread's to write.
if (isMainThread)
  process.on('exit', () => {
    const u = process.resourceUsage();
    const report: ProbeReport = { maxRssBytes: u.maxRSS * 1024, cpuMs: Math.round((u.userCPUTime + u.systemCPUTime) / 1000) };
    try {
      fs.writeSync(3, `${JSON.stringify(report)}\n`);
    } catch {
      // Not started by the bench (no descriptor 3): there is no one to tell.
    }
  });
