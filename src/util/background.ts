// Imported first by every thread module: in a daemon (runThreadsBelowMain in ./thread.ts) the thread
// runs below the main thread's priority, so that on few cores the main thread's answers come first.

import os from 'node:os';
import { BELOW_MAIN_ENV } from './thread.js';

// Linux sets a priority per thread; elsewhere the call would lower the whole process, so it is not made.
if (process.platform === 'linux' && process.env[BELOW_MAIN_ENV] === '1') {
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here (a sandbox): the thread runs at the process's priority, as before.
  }
}
