// The request body of each JSON operation as docs/operations.md lists it.
// Top-level objects are closed where the interface lists the fields; nested ones check known keys only.

import { anyObject, bool, datetime, either, listOf, nothing, num, object, oneOf, opt, req, str, type Shape } from './validate.js';

const closed = (fields: Parameters<typeof object>[0]): Shape => object(fields, false);

const listTypes = ['SERIAL', 'URL', 'DOMAIN', 'EMAIL', 'IP'] as const;
const tokenStatuses = ['active', 'disabled', 'expired'] as const;

const strings = listOf(str);

/** Operation 2. */
export const organization = closed({
  auth_domain: opt(str),
  auto_redirect_to_identity: opt(bool),
  custom_pages: opt(object({ forbidden: opt(str), identity_denied: opt(str) })),
  is_ui_read_only: opt(bool),
  login_design: opt(object({
    background_color: opt(str), footer_text: opt(str), header_text: opt(str), logo_path: opt(str), text_color: opt(str),
  })),
  name: opt(str),
  session_duration: opt(str),
  ui_read_only_toggle_reason: opt(str),
  user_seat_expiration_inactive_time: opt(str),
});

// As the provider requires: effect, permission groups and resources; a resource may map to a map
// of scopes, one level deep (every zone of an account).
const policy = object({
  effect: req(str),
  id: opt(str),
  permission_groups: req(listOf(object({ id: opt(str), name: opt(str) }))),
  resources: req({ kind: 'map', values: either('a string or a map of strings', str, { kind: 'map', values: str }) }),
});

const condition = object({ 'request.ip': opt(object({ in: opt(strings), not_in: opt(strings) })) });

/** Operation 8. */
export const tokenCreate = closed({
  name: req(str),
  policies: req(listOf(policy)),
  condition: opt(condition),
  expires_on: opt(datetime),
  not_before: opt(datetime),
});

/** Operation 3. The document requires `id` and `status`; the provider takes neither as required (its SDK sends no id). */
export const tokenUpdate = closed({
  id: opt(str),
  name: req(str),
  policies: req(listOf(policy)),
  status: opt(oneOf(...tokenStatuses)),
  condition: opt(condition),
  expires_on: opt(datetime),
  issued_on: opt(datetime),
  modified_on: opt(datetime),
  not_before: opt(datetime),
});

/** Operation 4. */
export const domain = closed({ environment: req(str), hostname: req(str), service: req(str), zone_id: req(str) });

/** Operation 5. */
export const proxyEndpoint = closed({ name: req(str), ips: req(strings), subdomain: opt(str) });

/** Operation 6. */
export const listCreate = closed({
  name: req(str),
  type: req(oneOf(...listTypes)),
  description: opt(str),
  // `description` per item: the provider takes it though the document does not show it.
  items: opt(listOf(closed({ created_at: opt(datetime), value: req(str), description: opt(str) }))),
});

/** Operation 9: type and items are not part of this request. */
export const listUpdate = closed({ name: req(str), description: opt(str) });

/** Operation 7. */
// The provider takes networks as `{network}` objects; the document shows strings: both are taken.
const network = either('a CIDR string or {network: CIDR}', str, closed({ network: req(str) }));
export const location = closed({ name: req(str), client_default: opt(bool), ecs_support: opt(bool), networks: opt(listOf(network)) });

/** Operation 11. */
export const route = closed({ pattern: req(str), script: opt(str) });

/** Operation 12. */
export const logging = closed({ redact_pii: opt(bool), settings_by_rule_type: opt(anyObject) });

/** Operation 13. */
export const gatewayAccount = closed({ account_id: req(str) });

/** Operation 15. */
// The provider takes `null` for a field (its clients send one to clear it).
const text = either('a string or null', str, nothing);
export const user = closed({ country: opt(text), first_name: opt(text), last_name: opt(text), telephone: opt(text), zipcode: opt(text) });

/** Operation 17. */
// `offramp_warp_enabled` is the provider's name of the flag the document calls `offramp_tunnel_enabled`.
export const connectivity = closed({ icmp_proxy_enabled: opt(bool), offramp_tunnel_enabled: opt(bool), offramp_warp_enabled: opt(bool) });

/** Operations 14 and 16: any JSON object. */
export const openObject = anyObject;

/** One element of operation 10's list (limits are checked in kv.ts). */
export const kvPair = closed({
  key: req(str),
  value: opt(str),
  base64: opt(bool),
  expiration: opt(num),
  expiration_ttl: opt(num),
  metadata: opt(anyObject),
});
