import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isCidr, isDuration } from '../../src/config/formats.js';

describe('duration', () => {
  test.each(['300ms', '2h45m', '1.5h', '24h', '10s', '1h0m0s', '5us', '5µs', '7ns', '.5s'])('accepts %s', (text) => {
    expect(isDuration(text)).toBe(true);
  });
  test.each(['1 day', '24', '', 'h', '1d', '1h 30m', '-5m', '1.5.5h', 'PT1H'])('refuses %j', (text) => {
    expect(isDuration(text)).toBe(false);
  });
  test('accepts any concatenation of numbers each with a unit', () => {
    const part = fc.tuple(fc.nat(100000), fc.option(fc.nat(999), { nil: undefined }), fc.constantFrom('ns', 'us', 'µs', 'ms', 's', 'm', 'h'));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const text = parts.map(([n, frac, unit]) => `${n}${frac === undefined ? '' : `.${frac}`}${unit}`).join('');
        expect(isDuration(text)).toBe(true);
      }),
    );
  });
  test('refuses a number without its unit at the end', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        expect(isDuration(`${a}h${b}`)).toBe(false);
      }),
    );
  });
});

describe('cidr', () => {
  test.each(['10.0.0.0/8', '192.0.2.1/32', '0.0.0.0/0', '2001:db8::/32', '::1/128', '::/0'])('accepts %s', (text) => {
    expect(isCidr(text)).toBe(true);
  });
  test.each(['10.0.0.0', '10.0.0.0/33', '10.0.0/8', '256.0.0.0/8', '2001:db8::/129', '2001:db8::', 'fe80::1%eth0/64', '10.0.0.0/08', '10.0.0.0/', 'example.com/24'])(
    'refuses %j',
    (text) => expect(isCidr(text)).toBe(false),
  );
  test('accepts every IPv4 prefix length up to 32 and none above', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), fc.integer({ min: 0, max: 200 }), (ip, bits) => {
        expect(isCidr(`${ip.join('.')}/${bits}`)).toBe(bits <= 32);
      }),
    );
  });
  test('accepts every IPv6 prefix length up to 128 and none above', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 300 }), (ip, bits) => {
        expect(isCidr(`${ip}/${bits}`)).toBe(bits <= 128);
      }),
    );
  });
});
