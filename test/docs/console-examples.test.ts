// Every console example of the README and the guides, run against the emulator, its output
// compared with the one written (test/docs/console.mjs says how). A command or an output that
// changes fails here, naming the file, the block's line and the command, until the document is
// brought up to date (scripts/docs-transcripts.mjs prints the outputs as they are now).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { consoleBlocks, docFiles, fencedBlocks, outputMatches, runDocument } from './console.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

if (!fs.existsSync(path.join(repo, 'dist/cli.js'))) {
  throw new Error('The console examples run the built command line: run `npm run build` first.');
}

const files = docFiles(repo);
const blocksOf = (file: string) => consoleBlocks(fs.readFileSync(path.join(repo, file), 'utf8'));

describe('outputs with …', () => {
  it('match a run of characters within a line, and any number of lines on a line of their own', () => {
    expect(outputMatches('id: …, done', 'id: 3f2c-9a, done')).toBe(true);
    expect(outputMatches('id: …, done', 'id: 3f2c\n9a, done')).toBe(false);
    expect(outputMatches('first\n…\nlast', 'first\nlast')).toBe(true);
    expect(outputMatches('first\n…\nlast', 'first\na\nb\nlast')).toBe(true);
    expect(outputMatches('first\n…\nlast', 'first\na\nb\nlast\nmore')).toBe(false);
    expect(outputMatches('exit 0', 'exit 1')).toBe(false);
    expect(outputMatches('a  ', 'a\n\n')).toBe(true);
  });
});

describe('the documents', () => {
  it('hold console blocks, each with commands, and say why a block is not run', () => {
    const all = files.flatMap((file) => blocksOf(file).map((b) => ({ file, ...b })));
    const run = all.filter((b) => !b.notRun);
    const notRun = all.filter((b) => b.notRun);
    expect(run.length).toBeGreaterThan(20);
    for (const b of all) expect(b.steps.length, `${b.file}:${b.line} holds no $ command`).toBeGreaterThan(0);
    console.info(`${run.length} console blocks run, ${notRun.length} not run:\n` + notRun.map((b) => `  ${b.file}:${b.line}  ${b.notRun}`).join('\n'));
    // A skip says why, and stays rare: most examples are run.
    expect(notRun.length).toBeLessThanOrEqual(5);
  });

  it('tag each fenced shell transcript console (run) or sh (not run)', () => {
    for (const file of files) {
      const text = fs.readFileSync(path.join(repo, file), 'utf8');
      for (const b of fencedBlocks(text)) {
        if (['bash', 'shell', 'shell-session', 'terminal'].includes(b.tag)) throw new Error(`${file}:${b.line}: tag it console (run) or sh (not run), not ${b.tag}`);
        if (b.tag !== 'console' && b.body.some((l: string) => l.startsWith('$ ')))
          throw new Error(`${file}:${b.line}: a transcript with $ lines tagged ${b.tag || '(none)'}: tag it console`);
      }
    }
  });
});

for (const file of files.filter((f) => blocksOf(f).some((b) => !b.notRun))) {
  describe(file, () => {
    it('prints what its console examples say', async () => {
      const blocks = await runDocument({ repo, file, startEmulator });
      const failures = blocks.flatMap((b) =>
        b.steps
          .filter((s: { ok: boolean }) => !s.ok)
          .map((s: { command: string; expected: string; actual: string }) => `${file}:${b.line}  $ ${s.command}\n--- written\n${s.expected}\n--- printed\n${s.actual}\n`),
      );
      expect(failures.join('\n'), `${failures.length} command(s) printed something else`).toBe('');
    }, 600_000);
  });
}
