// The state as `plan` reads it: one consistent snapshot, no lock (WAL lets it read while an
// apply writes), and an empty one when no state file exists yet.

import fs from 'node:fs';
import path from 'node:path';
import { openStateStore } from '../state/index.js';
import type { StateSnapshot } from '../state/types.js';

/** The state before any apply. */
export const EMPTY_SNAPSHOT: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: () => new Map(), kvKeyCount: () => 0 };

export function withSnapshot<T>(stateFile: string, use: (snapshot: StateSnapshot) => T): T {
  if (!fs.existsSync(path.resolve(stateFile))) return use(EMPTY_SNAPSHOT);
  const store = openStateStore({ file: path.resolve(stateFile), readOnly: true, lock: false });
  try {
    return use(store.snapshot());
  } finally {
    store.close();
  }
}
