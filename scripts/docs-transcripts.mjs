#!/usr/bin/env node
// Runs the console examples of the README and the guides as test/docs/console-examples.test.ts
// does, and prints each block with the output the commands actually printed, to paste from.
//
//   npm run build && node scripts/docs-transcripts.mjs [--changed] [--write] [FILE.md …]
//
// --changed prints only the blocks whose output differs from the one written; --write also puts
// those outputs in place of the written ones. Either way a written line holding `…` is kept where
// it matches the line printed, and the scratch folder's path is shown as `…`, so placeholders for
// ids, times and paths survive; review what --write did with `git diff` before committing.

import fs from 'node:fs';
import path from 'node:path';
import { asConsole, docFiles, outputMatches, runDocument } from '../test/docs/console.mjs';

const repo = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const changedOnly = args.includes('--changed') || args.includes('--write');
const write = args.includes('--write');
const files = args.filter((a) => !a.startsWith('--'));
const { startEmulator } = await import(path.join(repo, 'dist/emulator/index.js'));

/** The printed output, with each line that a written line holding `…` matches written as that line. */
function keepPlaceholders(expected, actual, scratch) {
  const a = actual.split(scratch).join('…').split('\n');
  const e = expected.split('\n');
  // Lines matched in order; a written `…` line of its own keeps the lines it stood for out.
  const out = [];
  let i = 0;
  for (const line of a) {
    while (i < e.length && e[i] !== '…' && e[i].includes('…') && !outputMatches(e[i], line) && e.slice(i + 1).some((l) => outputMatches(l, line))) i++;
    if (i < e.length && e[i].includes('…') && e[i] !== '…' && outputMatches(e[i], line)) {
      out.push(e[i]);
      i++;
    } else {
      out.push(line);
      if (i < e.length && e[i] === line) i++;
    }
  }
  return out.join('\n');
}

let differences = 0;
for (const file of files.length ? files : docFiles(repo)) {
  const blocks = await runDocument({ repo, file, startEmulator, log: (line) => process.stderr.write(`${line}\n`) });
  const lines = fs.readFileSync(path.join(repo, file), 'utf8').split('\n');
  // From the last block up, so that the lines of the blocks above stay where they are.
  for (const block of [...blocks].reverse()) {
    if (block.notRun) continue;
    const changed = block.steps.some((s) => !s.ok);
    if (changed) differences++;
    if (changedOnly && !changed) continue;
    const steps = block.steps.map((s) => ({ ...s, actual: s.ok ? s.expected : keepPlaceholders(s.expected, s.actual, s.scratch) }));
    const text = asConsole(steps);
    process.stdout.write(`${file}:${block.line}${changed ? '  (differs)' : ''}\n\`\`\`console\n${text}\n\`\`\`\n\n`);
    if (write && changed) lines.splice(block.line, block.end - block.line - 1, ...text.split('\n'));
  }
  if (write) fs.writeFileSync(path.join(repo, file), lines.join('\n'));
}
process.stderr.write(`${differences} block(s) differ from their written output\n`);
