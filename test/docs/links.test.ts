// Every relative link of the README and the guides leads to a file that exists, and every
// `#anchor` to a heading of its target (as GitHub makes a heading's anchor), so that moving a
// section from one document to another cannot leave a link behind.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docFiles } from './console.mjs';
import { anchors, prose } from './anchors.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('links of the README and the guides', () => {
  it('make GitHub anchors as GitHub does', () => {
    expect([...anchors('## Token secrets in the database: `EDGESYNC_SECRETS_KEY`\n## A\n## A\n')]).toEqual(['token-secrets-in-the-database-edgesync_secrets_key', 'a', 'a-1']);
  });

  for (const file of docFiles(repo)) {
    it(`${file}: every relative link and anchor leads somewhere`, () => {
      const text = fs.readFileSync(path.join(repo, file), 'utf8');
      const broken: string[] = [];
      for (const line of prose(text)) {
        for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1];
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          const [rel, anchor] = target.split('#') as [string, string | undefined];
          const at = rel === '' ? path.join(repo, file) : path.resolve(path.dirname(path.join(repo, file)), rel);
          if (!fs.existsSync(at)) {
            broken.push(`${target}: no such file`);
            continue;
          }
          if (anchor !== undefined && at.endsWith('.md') && !anchors(fs.readFileSync(at, 'utf8')).has(anchor)) {
            broken.push(`${target}: no heading makes #${anchor}`);
          }
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
