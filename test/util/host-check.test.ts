import { describe, expect, it } from 'vitest';
import { checkAllowedHost, hostAllowed, isLoopbackHost, misdirected } from '../../src/util/host-check.js';

describe('which Host a loopback listener answers', () => {
  it('answers this machine by name or address, with no port or exactly its own', () => {
    for (const host of ['localhost', 'localhost:9300', 'LocalHost:9300', '127.0.0.1', '127.0.0.1:9300', '127.4.5.6:9300', '[::1]', '[::1]:9300']) {
      expect(hostAllowed(host, 9300)).toBe(true);
    }
  });

  it('refuses another name, another port, or a name that only starts like an address', () => {
    for (const host of [
      'attacker.example',
      'attacker.example:9300',
      'localhost:9301',
      '127.0.0.1:80',
      '127.attacker.example',
      '127.0.0.1.attacker.example:9300',
      '[::2]:9300',
      '10.0.0.5:9300',
      'localhost:99999',
      'a b',
      'user@127.0.0.1',
    ]) {
      expect(hostAllowed(host, 9300)).toBe(false);
    }
  });

  it('answers a request without Host (HTTP/1.0)', () => {
    expect(hostAllowed(undefined, 9300)).toBe(true);
    expect(hostAllowed('', 9300)).toBe(true);
  });

  it('also answers an allowed name: on any port, or on the port it names', () => {
    expect(hostAllowed('edge.example.com', 9300, ['edge.example.com'])).toBe(true);
    expect(hostAllowed('EDGE.example.com:443', 9300, ['edge.example.com'])).toBe(true);
    expect(hostAllowed('edge.example.com:8443', 9300, ['edge.example.com:8443'])).toBe(true);
    expect(hostAllowed('edge.example.com:443', 9300, ['edge.example.com:8443'])).toBe(false);
    expect(hostAllowed('edge.example.com', 9300, ['edge.example.com:8443'])).toBe(false);
    expect(hostAllowed('other.example.com', 9300, ['edge.example.com'])).toBe(false);
  });

  it('refuses an --allowed-host value that is no Host, naming it', () => {
    expect(checkAllowedHost('allowed-host[0]', 'Proxy.Example:8080')).toBe('proxy.example:8080');
    expect(checkAllowedHost('allowed-host[0]', '[fe80::1]')).toBe('[fe80::1]');
    for (const bad of ['', 'http://proxy.example', 'proxy.example/path', 'proxy.example:port', 42]) {
      expect(() => checkAllowedHost('allowed-host[0]', bad)).toThrow(/^Expected `allowed-host\[0\]` to be a host name, or NAME:PORT/);
    }
  });

  it('says in one line what it refused and how to allow it', () => {
    const line = misdirected('attacker.example', 9300, 'start it with --allowed-host NAME');
    expect(line).toBe(
      'Misdirected request: this listener is on loopback and answers Host localhost, 127.0.0.1 or [::1], with no port or port 9300, not "attacker.example"; start it with --allowed-host NAME\n',
    );
    expect(line.trimEnd()).not.toContain('\n');
  });

  it('reads 127.0.0.0/8, ::1 and localhost as loopback listen addresses, and no other', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'edge.example.com', '::ffff:10.0.0.1']) expect(isLoopbackHost(host)).toBe(false);
  });
});
