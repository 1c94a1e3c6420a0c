import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, desire, exampleDocuments, kindOf, schemaErrors, schemas } from './helpers.js';

const examples = exampleDocuments().filter(({ file }) => !file.includes(`${path.sep}kv${path.sep}`));

describe('the example config root', () => {
  it('uses each kind at least once', () => {
    const kinds = new Set(examples.map(({ doc }) => doc.kind));
    expect([...kinds].sort()).toEqual(
      [
        'AccessOrganization',
        'AiRun',
        'ApiToken',
        'ConnectivitySettings',
        'Credentials',
        'GatewayAccount',
        'GatewayList',
        'GatewayLocation',
        'GatewayLogging',
        'GatewayProxyEndpoint',
        'Policy',
        'UserProfile',
        'WorkerDomain',
        'WorkerRoute',
        'WorkerScript',
      ].sort(),
    );
  });

  it.each(examples.map(({ file, doc }) => [`${path.relative(EXAMPLES, file)} ${String(doc.kind)}/${String((doc.metadata as { name: string }).name)}`, file, doc] as const))(
    'accepts %s against its schema and builds it without issues',
    (_label, file, doc) => {
      expect(schemaErrors(doc)).toEqual([]);
      // The schema the files' modeline names, which editors check them against.
      expect(schemas.validate('edgesync.schema.json', doc)).toEqual([]);
      const metadata = doc.metadata as Record<string, unknown>;
      const { issues } = desire(String(doc.kind), metadata, doc.spec, { root: EXAMPLES, file: path.relative(EXAMPLES, file) });
      expect(issues).toEqual([]);
      expect(kindOf(String(doc.kind)).schema).toMatch(/\.schema\.json$/);
    },
  );
});
