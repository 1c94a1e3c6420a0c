// The Chromium the browser tests drive (the system's, never a download), or why they are skipped:
// EDGESYNC_CHROMIUM names it, else the usual paths; EDGESYNC_BROWSER_TESTS=require makes a missing one fail.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser's path, or undefined when none is installed. */
function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.EDGESYNC_CHROMIUM?.trim();
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`EDGESYNC_CHROMIUM names ${named}, which does not exist`);
    return named;
  }
  return CANDIDATES.find((p) => fs.existsSync(p));
}

/** CI sets this: there the browser tests must run. */
const browserRequired = process.env.EDGESYNC_BROWSER_TESTS === 'require';

export const chromium = findChromium();
if (!chromium && browserRequired) {
  throw new Error('EDGESYNC_BROWSER_TESTS=require but no Chromium was found: apt-get install -y chromium, or set EDGESYNC_CHROMIUM to its path');
}
if (!chromium) console.warn('Browser tests skipped: no Chromium found (apt-get install -y chromium, or set EDGESYNC_CHROMIUM to its path).');

/** Screenshots and other artifacts of the browser tests (ignored by git). */
export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts');
