// A blocked change points at the field that changed, where the file writes it, not at the line its
// document starts on: that is where a person looks to undo it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import '../../src/kinds/index.js';
import type { DesiredResource } from '../../src/kinds/kind.js';
import { buildPlan, renderJson, renderText } from '../../src/plan/index.js';
import type { AppliedResource, StateSnapshot } from '../../src/state/types.js';

const EMPTY: StateSnapshot = { resources: new Map(), intents: new Map(), kvKeys: async () => new Map(), kvKeyCount: async () => 0, kvExpired: async () => [] };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function load(yaml: string): Promise<readonly DesiredResource[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-blocked-'));
  dirs.push(root);
  fs.writeFileSync(path.join(root, 'lists.yaml'), yaml);
  const result = await loadConfig({ root, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.resources;
}

/** The state after every action of a first plan of `resources` succeeded (creates get ids). */
async function applied(resources: readonly DesiredResource[]): Promise<StateSnapshot> {
  const state = new Map<string, AppliedResource>();
  for (const a of (await buildPlan(resources, EMPTY)).actions) {
    state.set(a.resource, {
      key: a.resource,
      kind: a.kind,
      name: a.name,
      scope: a.scope,
      status: 'applied',
      remoteId: `id-${a.name}`,
      request: a.record.request,
      hash: a.record.hash,
      memo: a.record.memo,
    });
  }
  return { ...EMPTY, resources: state };
}

const list = (type: string) => `# a comment above
apiVersion: edgesync/v1
kind: GatewayList
metadata:
  name: blocked-domains
  account: 0123456789abcdef0123456789abcdef
spec:
  name: Blocked domains
  description: Nobody goes there
  type: ${type}
  items:
    - value: malware.example.net
`;

describe('a blocked change', () => {
  it('points at the line of the field that changed, not at the first line of its document', async () => {
    const state = await applied(await load(list('DOMAIN')));
    const plan = await buildPlan(await load(list('URL')), state);
    expect(plan.blocked).toHaveLength(1);
    expect(plan.blocked[0]).toMatchObject({ fields: ['type'], source: { file: expect.stringMatching(/lists\.yaml$/), line: 10, col: 3 } });
    expect(renderText(plan)).toMatch(/^! GatewayList\[account=0123456789abcdef0123456789abcdef\]\/blocked-domains {2}blocked \(.*lists\.yaml:10\)$/m);
    expect(JSON.parse(renderJson(plan)).blocked[0].source).toMatchObject({ line: 10, col: 3 });
  });

  it('points each of several blocked changes at its own field in the file', async () => {
    const state = await applied(await load(list('DOMAIN')));
    const dated = list('URL').replace('- value: malware.example.net', '- value: malware.example.net\n      created_at: 2026-01-01T00:00:00Z');
    const plan = await buildPlan(await load(dated), state);
    expect(plan.blocked.map((b) => [b.fields, b.source?.line])).toEqual([
      [['type'], 10],
      [['items'], 11],
    ]);
  });

  it('points at a field the document stopped writing by where the document starts', async () => {
    const proxy = (subdomain: string) =>
      `# a comment above\napiVersion: edgesync/v1\nkind: GatewayProxyEndpoint\nmetadata:\n  name: office\n  account: 0123456789abcdef0123456789abcdef\nspec:\n  name: Office\n  ips: [192.0.2.0/24]\n${subdomain}`;
    const state = await applied(await load(proxy('  subdomain: office\n')));
    const plan = await buildPlan(await load(proxy('')), state);
    expect(plan.blocked[0]).toMatchObject({ fields: ['subdomain'], source: { line: 2, col: 1 } });
  });
});
