// KV from a JSON Lines source at the command line: a first sync writes every line, an edited line
// is the one pair sent next, and a broken line is refused at its number with nothing sent.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_ACCOUNT, BENCH_NAMESPACE, writeKvDocument } from '../../bench/generate.js';
import { cli, emulator, TOKEN } from './harness.js';

function root(lines: readonly string[]): { dir: string; write: (lines: readonly string[]) => void; args: (url: string) => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-e2e-jsonl-'));
  const config = path.join(dir, 'config');
  fs.mkdirSync(config);
  writeKvDocument(config, 'jsonl');
  const write = (l: readonly string[]) => fs.writeFileSync(path.join(config, 'pairs.jsonl'), `${l.join('\n')}\n`);
  write(lines);
  return { dir, write, args: (url) => ['--config', config, '--state', path.join(dir, 'state', 'state.db'), '--base-url', url] };
}

const line = (i: number, value = `value-${i}`) => JSON.stringify({ key: `k/${String(i).padStart(5, '0')}`, value });

describe('a JSON Lines KV source', () => {
  it('is written whole on the first sync, then only the edited line; a broken line sends nothing', async () => {
    const emu = await emulator();
    const lines = Array.from({ length: 25_000 }, (_, i) => line(i));
    const ws = root(lines);
    try {
      const first = await cli(['apply', ...ws.args(emu.url)], { env: { EDGESYNC_API_TOKEN: TOKEN } });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('Plan: 25,000 KV pairs in 3 chunks.');
      expect(emu.kv(BENCH_ACCOUNT, BENCH_NAMESPACE).size).toBe(25_000);

      ws.write(lines.map((l, i) => (i === 12_345 ? line(i, 'edited') : l)));
      const mark = emu.requests().length;
      const second = await cli(['apply', ...ws.args(emu.url)], { env: { EDGESYNC_API_TOKEN: TOKEN } });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('Plan: 1 KV pair in 1 chunk.');
      expect(emu.requests().length - mark).toBe(1);
      expect(String(emu.kv(BENCH_ACCOUNT, BENCH_NAMESPACE).get('k/12345')?.value)).toBe('edited');

      ws.write([...lines.slice(0, 9), '{"key": "k/broken", "value":', ...lines.slice(10)]);
      const broken = await cli(['apply', ...ws.args(emu.url)], { env: { EDGESYNC_API_TOKEN: TOKEN } });
      expect(broken.code).not.toBe(0);
      expect(broken.stderr).toMatch(/pairs\.jsonl:10(:\d+)?: not valid JSON/);
      expect(emu.requests().length - mark).toBe(1);
    } finally {
      fs.rmSync(ws.dir, { recursive: true, force: true });
    }
  });
});
