// ConnectivitySettings (operation 17, PATCH): the account network's ICMP proxy and off-ramp flags.
// Only changed flags are sent; the off-ramp flag goes out under the provider's name, offramp_warp_enabled.

import { compact, isObject } from './diff.js';
import { accountRead, accountScope, patchKind, perAccount } from './families.js';
import type { Built, BuildContext, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';

/** The document's stand-in name of the flag; the provider ignores a PATCH that uses it. */
const DOCUMENT_NAME = 'offramp_tunnel_enabled';

function build(doc: ResourceDocument, ctx: BuildContext): Built {
  const { [DOCUMENT_NAME]: documentName, ...spec } = isObject(doc.spec) ? doc.spec : {};
  if (documentName === undefined) return { request: compact(spec) };
  if (spec.offramp_warp_enabled !== undefined) {
    ctx.issue(['spec', DOCUMENT_NAME], 'offramp_tunnel_enabled is another name of offramp_warp_enabled: write one of them, not both');
  }
  return { request: compact({ ...spec, offramp_warp_enabled: documentName }) };
}

registerKind(
  patchKind({
    kind: 'ConnectivitySettings',
    ...accountScope('account_identifier'),
    operation: 'updateConnectivitySettings',
    build,
    // Sent under the document's name by older builds, so never applied: it goes out again.
    neverApplied: [DOCUMENT_NAME],
    targets: perAccount('connectivity settings'),
    // The two flags, under the provider's names as the request keeps them; no field is the server's
    // or a set. Never missing: the defaults until written.
    observe: accountRead('getConnectivitySettings', ['icmp_proxy_enabled', 'offramp_warp_enabled']),
  }),
);
