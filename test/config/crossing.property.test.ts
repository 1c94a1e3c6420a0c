// A Credentials document's errors are placed from what crossed from a load's helper thread (the
// places of its fields) exactly where its locator places them, for any path asked.

import fc from 'fast-check';
import { stringify } from 'yaml';
import { expect, it } from 'vitest';
import { errorAtPlaces, placesOf } from '../../src/config/crossing.js';
import { parseYaml } from '../../src/config/yaml.js';

const LIMITS = { maxAliasNodes: 10_000, maxDepth: 64 };
const key = fc.constantFrom('spec', 'accounts', 'default', 'secret', 'env', 'a', '0', '1', 'x y', '__proto__');
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom(null, true, 3, 'text', ''), tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 3 }),
  map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
})).node;
const step = fc.oneof(key, fc.nat(4));

it("places every path, present or not, where the document's locator places it", () => {
  fc.assert(
    fc.property(
      fc.dictionary(key, value, { minKeys: 1, maxKeys: 4 }),
      fc.array(fc.array(step, { maxLength: 5 }), { minLength: 1, maxLength: 20 }),
      fc.constantFrom('block', 'flow'),
      (doc, paths, style) => {
        const text = `# a comment first\n${stringify(doc, style === 'flow' ? { collectionStyle: 'flow' } : {})}`;
        const parsed = parseYaml(text, {}, LIMITS).documents[0]!;
        const at = errorAtPlaces(placesOf(parsed.value, parsed.locator), 'creds.yaml');
        // Paths that are in the document, and others that go past or beside them.
        for (const path of [...paths, ...Object.keys(doc).map((k) => [k, 0, 'x'])]) {
          const { line, col } = parsed.locator.value(path);
          expect(at(path, 'm')).toMatchObject({ file: 'creds.yaml', line, col, message: 'm' });
        }
      },
    ),
    { numRuns: 300 },
  );
});
