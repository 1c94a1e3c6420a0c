// Imported first by every thread module: the thread runs below the main thread's priority, so that
// on a machine of few cores the main thread's answers (health checks, the status page) come first.

import os from 'node:os';

// Linux sets a priority per thread; elsewhere the call would lower the whole process, so it is not made.
if (process.platform === 'linux') {
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here (a sandbox): the thread runs at the process's priority, as before.
  }
}
