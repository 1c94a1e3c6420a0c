// Plans a reviewer would see, built from fake kinds: one of every sign, with secrets planted
// in every place a secret can hide (sensitive fields, KV values, module contents).

import type { Plan } from '../../src/plan/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { applied, fakeKinds, intent, resource, snapshot } from './fakes.js';
import { contentHash } from '../../src/util/json.js';

export const SECRETS = ['tok-SECRET-123', 'tok-SECRET-OLD', 'bind-SECRET-456', 'kv-SECRET-789', 'module-SECRET-000'];

const account = { account: 'acc1' };
const kvScope = { account: 'acc1', namespace: 'ns1' };

/** Every kind of line at once: create, update, PATCH removal, blocked, uncertain, orphaned, KV, script upload. */
export async function reviewPlan(): Promise<Plan> {
  const list = resource('List', 'blocked-domains', { scope: account, request: { name: 'Blocked domains', type: 'DOMAIN' } });
  const site = resource('Site', 'org', { scope: account, request: { name: 'New', auth_domain: 'x.example.com' } });
  const profile = resource('Profile', 'me', { request: { first_name: 'Sam' } });
  const location = resource('Location', 'office', { scope: account, request: { name: 'Office', networks: ['10.0.0.0/8'] } });
  const pending = resource('Token', 'deploy', { request: { name: 'Deploy' } });
  const token = resource('Token', 'ci', { request: { name: 'CI', secret: 'tok-SECRET-123' } });
  const kv = resource('KvPairs', 'static', { scope: kvScope, request: { pairs: { a: 'kv-SECRET-789', b: '2', c: '3', same: 's' } } });
  const script = resource('Script', 'api', {
    scope: account,
    request: { main_module: 'index.js', binding_text: 'bind-SECRET-456' },
  });
  const orphan = resource('List', 'old-list', { scope: account });
  const upload = {
    metadata: { main_module: 'index.js' },
    modules: [{ name: 'index.js', contentType: 'application/javascript+module', content: Buffer.from('module-SECRET-000'.repeat(100)) }],
  };
  const scriptWithBody = { ...script, request: script.request, payload: upload };
  const state = snapshot({
    resources: [
      applied(site, { name: 'Old', auth_domain: 'x.example.com' }),
      applied(profile, { first_name: 'Sam', telephone: '555' }),
      applied(location, { name: 'Office' }),
      applied(token, { name: 'CI', secret: 'tok-SECRET-OLD' }),
      applied(kv),
      applied(orphan),
    ],
    intents: [intent(pending, 'createToken', '2026-11-21T09:00:00.000Z')],
    kv: { [kv.key]: { same: contentHash('s'), gone1: contentHash('x'), gone2: contentHash('y') } },
  });
  const plan = await buildPlan([list, site, profile, location, pending, token, kv, scriptWithBody], state, fakeKinds);
  // The fake Script kind sends its request as the body; a real one sends the upload: swap it in.
  return { ...plan, actions: plan.actions.map((a) => (a.kind === 'Script' ? { ...a, body: upload } : a)) };
}
