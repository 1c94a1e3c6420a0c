// The SQLite driver for the Node line this process runs on: better-sqlite3 13 (Node-API, prebuilt)
// on Node 22 and later, and the optional 12 line (compiled at install) on Node 20, where 13 cannot load.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Why two lines: from Node 24.19 a statement or database of better-sqlite3 12 collected by the
 * garbage collector outside a JavaScript context aborts the process (Node's ObjectWrap asserts);
 * 13 is built on Node-API and is free of it, but needs Node 22 or later.
 */
const NODE20_PACKAGE = 'better-sqlite3-node20';
const CURRENT_PACKAGE = 'better-sqlite3';

/** Which packages to try, in order, on Node `major`. */
export function driverPackages(major: number): readonly string[] {
  return major >= 22 ? [CURRENT_PACKAGE, NODE20_PACKAGE] : [NODE20_PACKAGE];
}

function load(): { name: string; constructor: typeof BetterSqlite3 } {
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  const reasons: string[] = [];
  for (const name of driverPackages(major)) {
    try {
      return { name, constructor: require(name) as typeof BetterSqlite3 };
    } catch (error) {
      reasons.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new Error(
    `edgesync found no SQLite driver that loads on Node ${process.versions.node}. ` +
      (major >= 22 ? '' : `On Node 20 it uses ${NODE20_PACKAGE}, compiled at install (python3, make and g++ are needed); `) +
      `reinstall with \`npm ci\` on this Node. Tried ${reasons.join('; ')}`,
  );
}

const loaded = load();

/** The package the driver was loaded from. */
export const driverName: string = loaded.name;

/** The better-sqlite3 `Database` constructor; the two lines share one API. */
export const Database: typeof BetterSqlite3 = loaded.constructor;
export type Database = BetterSqlite3.Database;
