// The string formats the kind schemas use beyond ajv-formats: `duration`, `cidr`, `location-network`.
// All are strict: a duration needs a unit on every number, a CIDR needs its prefix length.

import { isIPv4, isIPv6 } from 'node:net';

/** Numbers each followed by a unit, concatenated: `300ms`, `2h45m`, `1.5h`. */
const DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/;

export function isDuration(text: string): boolean {
  return DURATION.test(text);
}

/** An IPv4 or IPv6 network with its prefix length: `10.0.0.0/8`, `2001:db8::/32`. */
export function isCidr(text: string): boolean {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^(?:0|[1-9]\d{0,2})$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (isIPv4(address)) return bits <= 32;
  return !address.includes('%') && isIPv6(address) && bits <= 128;
}

/** A Gateway location's network as the provider takes it: IPv4, prefix /24 to /32. */
export function isLocationNetwork(text: string): boolean {
  const slash = text.lastIndexOf('/');
  return isCidr(text) && isIPv4(text.slice(0, slash)) && Number(text.slice(slash + 1)) >= 24;
}

/** Examples shown in messages, per format: "expected a CIDR like 10.0.0.0/8". */
export const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  duration: 'a duration like 24h or 2h45m',
  cidr: 'a CIDR like 10.0.0.0/8',
  'location-network': 'an IPv4 network from /24 to /32 like 192.0.2.0/24',
  hostname: 'a hostname like example.com',
  'date-time': 'a date-time like 2030-01-01T00:00:00Z',
  uuid: 'a UUID like 123e4567-e89b-42d3-a456-426614174000',
  ipv4: 'an IPv4 address like 192.0.2.1',
  ipv6: 'an IPv6 address like 2001:db8::1',
  uri: 'a URI like https://example.com/',
  email: 'an email address like ops@example.com',
  date: 'a date like 2030-01-01',
};
