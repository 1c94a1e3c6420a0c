// Every edgesync flag the README and the guides show is one the command line takes: those of the
// synopses and of the examples that are not run (```sh blocks, inline code), which the console
// examples' test cannot catch. Each is looked up in the `--help` of the command it is written with.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docFiles, fencedBlocks } from './console.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMMANDS = ['init', 'validate', 'plan', 'show', 'apply', 'import', 'watch', 'emulator', 'state', 'completion'] as const;
const STATE_SUBCOMMANDS = ['list', 'show', 'forget', 'resolve', 'runs', 'secret', 'export', 'import', 'migrate', 'unlock'];
/** Flags of other programs that inline code shows beside edgesync's: npm run bench, node, docker, git, biome, systemctl. */
const OTHERS = new Set([
  'only',
  'pairs',
  'formats',
  'changed',
  'value-bytes',
  'backends',
  'calls',
  'rate',
  'kills',
  'pushes',
  'resources',
  'accounts',
  'repeats',
  'edits',
  'latency-resources',
  'latency-pairs',
  'latency-plan-pairs',
  'import-objects',
  'import-accounts',
  'baseline',
  'baseline-ref',
  'rounds',
  'record',
  'trace-gc',
  'cpu-prof',
  'max-old-space-size',
  'env-file',
  'now',
  'depth',
  'filter',
  'hostname',
  'error-on-warnings',
  'write',
]);

const help = (...args: string[]): string => execFileSync(process.execPath, [path.join(repo, 'bin/edgesync'), ...args, '--help'], { encoding: 'utf8' });
const flagsIn = (text: string): string[] => [...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]);

describe('the flags the documents show', () => {
  const known = new Map<string, Set<string>>();
  for (const c of COMMANDS) {
    const texts = c === 'state' ? [help('state'), ...STATE_SUBCOMMANDS.map((s) => help('state', s))] : [help(c)];
    known.set(c, new Set(texts.flatMap(flagsIn)));
  }
  const all = new Set([...known.values()].flatMap((s) => [...s]));

  /** `edgesync CMD …` (or ./bin/edgesync) in a text: each command with the flags written after it. */
  function uses(text: string): { command: string; flags: string[] }[] {
    const out: { command: string; flags: string[] }[] = [];
    const re = /(?:^|[\s(`/])edgesync\s+(validate|plan|apply|import|watch|emulator|state)\b([^`\n]*(?:\\\n[^`\n]*)*)/g;
    for (const m of text.matchAll(re)) out.push({ command: m[1], flags: flagsIn(m[2].split(/[|;]|&&|\s#/)[0]) });
    return out;
  }

  for (const file of docFiles(repo)) {
    it(`${file}: each is a flag of its command`, () => {
      const text = fs.readFileSync(path.join(repo, file), 'utf8');
      const wrong: string[] = [];
      for (const block of fencedBlocks(text)) {
        if (!['', 'sh', 'console'].includes(block.tag)) continue;
        // A synopsis line goes on in the lines indented below it.
        const body = block.body.join('\n').replace(/\n\s{10,}(?=[[|])/g, ' ');
        for (const use of uses(body)) {
          for (const f of use.flags) if (!known.get(use.command)!.has(f)) wrong.push(`${file}:${block.line}  edgesync ${use.command} --${f}`);
        }
      }
      const prose = text.replace(/^\s*(`{3,})[\s\S]*?^\s*\1\s*$/gm, '');
      for (const span of prose.match(/`[^`\n]+`/g) ?? []) {
        const withCommand = uses(span);
        if (withCommand.length) {
          for (const use of withCommand) for (const f of use.flags) if (!known.get(use.command)!.has(f)) wrong.push(`${file}  ${span}: --${f}`);
        } else {
          for (const f of flagsIn(span)) if (!all.has(f) && !OTHERS.has(f)) wrong.push(`${file}  ${span}: --${f}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
