// Which backend `--state` names: a postgres:// URL is a PostgreSQL database (with workspaces),
// anything else a SQLite file (one config root's state per file).

import { fail } from '../util/options.js';
import { sqliteBackend, type StateBackend } from './backend.js';
import { pgBackend } from './pg/backend.js';
import { isPgUrl } from './pg/url.js';

export function stateBackend(spec: string, workspace?: string): StateBackend {
  if (isPgUrl(spec)) return pgBackend(spec, workspace);
  if (workspace !== undefined && workspace !== 'default') {
    fail('--workspace', 'left out for a SQLite state (one file holds one state; workspaces are for a postgres:// state)', workspace);
  }
  return sqliteBackend(spec);
}
