// Which SQLite driver each supported Node line loads. That the one loaded here survives collected
// statements is shown by test/state/durability.test.ts, which aborted on Node 24 with the 12 line.

import { describe, expect, it } from 'vitest';
import { driverName, driverPackages } from '../../src/state/driver.js';

describe('the SQLite driver', () => {
  it('is the Node-API line on Node 22 and later, with the compiled line as a fallback, and only the compiled line on Node 20', () => {
    expect(driverPackages(20)).toEqual(['better-sqlite3-node20']);
    expect(driverPackages(22)).toEqual(['better-sqlite3', 'better-sqlite3-node20']);
    expect(driverPackages(24)).toEqual(['better-sqlite3', 'better-sqlite3-node20']);
  });

  it('loads the first choice for the Node line it runs on, not the fallback', () => {
    expect(driverName).toBe(driverPackages(Number(process.versions.node.split('.')[0]))[0]);
  });
});
