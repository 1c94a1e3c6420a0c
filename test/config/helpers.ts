// Shared by the config tests: loading a fixture scenario and making temp config roots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import '../../src/kinds/index.js';
import { loadConfig, type ConfigError, type LoadOptions, type LoadResult } from '../../src/config/index.js';

export const FIXTURES = path.join('test', 'fixtures', 'config');

export function loadFixture(scenario: string, options: Partial<LoadOptions> = {}): Promise<LoadResult> {
  return loadConfig({ root: path.join(FIXTURES, scenario), env: {}, ...options });
}

export function errorsOf(result: LoadResult): readonly ConfigError[] {
  if (result.ok) throw new Error(`expected the config to be refused, it loaded ${result.resources.length} resources`);
  return result.errors;
}

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temp folder with `files` written in it (paths relative to it); removed after the test. */
export function tempRoot(files: Record<string, string | Buffer> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-config-'));
  temps.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

export const LIST = (name: string, extra = '') => `apiVersion: edgesync/v1
kind: GatewayList
metadata:
  name: ${name}
  account: "0123456789abcdef0123456789abcdef"
spec:
  name: ${name}
  type: IP
${extra}`;

export const WORKER = (file: string) => `apiVersion: edgesync/v1
kind: WorkerScript
metadata:
  name: api
  account: "0123456789abcdef0123456789abcdef"
  service: api
  environment: production
spec:
  main_module: index.js
  modules:
    - name: index.js
      file: ${file}
`;
