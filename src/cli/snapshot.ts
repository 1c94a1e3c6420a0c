// The state as `plan` reads it: one consistent snapshot, no lock (WAL lets it read while an
// apply writes), and an empty one when no state file exists yet.

import fs from 'node:fs';
import path from 'node:path';
import { checkMissingState, openStateStore, shownPath } from '../state/index.js';
import type { StateSnapshot } from '../state/types.js';

/** The state before any apply. */
export const EMPTY_SNAPSHOT: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: () => new Map(), kvKeyCount: () => 0, kvExpired: () => [] };

/** `secretsDir`: when the state is missing but this folder holds files, the state was lost: refused, not read as empty. */
export function withSnapshot<T>(stateFile: string, use: (snapshot: StateSnapshot) => T, secretsDir?: string): T {
  if (!fs.existsSync(path.resolve(stateFile))) {
    checkMissingState(path.resolve(stateFile), shownPath(stateFile), secretsDir);
    return use(EMPTY_SNAPSHOT);
  }
  const store = openStateStore({ file: path.resolve(stateFile), readOnly: true, lock: false });
  try {
    return use(store.snapshot());
  } finally {
    store.close();
  }
}
