import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './public-address.js';
import { webhookUrlProblem } from './webhook-url.js';

describe('public addresses', () => {
  it('refuses every range that is not the public internet', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      'not an address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('allows public unicast addresses, plain or IPv4-mapped', () => {
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '::ffff:93.184.216.34'])
      expect(isPublicAddress(address), address).toBe(true);
  });
});

describe('webhook addresses', () => {
  it('takes a public https address', () => {
    expect(webhookUrlProblem('https://hooks.example.com/in?x=1', false)).toBeNull();
    expect(webhookUrlProblem('https://93.184.216.34/in', false)).toBeNull();
  });

  it('refuses other schemes, credentials, private literals, localhost and bare names', () => {
    expect(webhookUrlProblem('http://hooks.example.com/', false)).toMatch(/https/);
    expect(webhookUrlProblem('ftp://hooks.example.com/', false)).toMatch(/https/);
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/password/);
    for (const url of [
      'https://127.0.0.1/',
      'https://10.0.0.5/',
      'https://[::1]/',
      'https://169.254.169.254/',
      'https://[::ffff:7f00:1]/',
    ]) {
      expect(webhookUrlProblem(url, false), url).toMatch(/private/);
    }
    expect(webhookUrlProblem('https://localhost:8443/', false)).toMatch(/loopback/);
    expect(webhookUrlProblem('https://api.localhost/', false)).toMatch(/loopback/);
    expect(webhookUrlProblem('https://intranet/', false)).toMatch(/public/);
    expect(webhookUrlProblem('not a url', false)).toMatch(/address/);
    expect(webhookUrlProblem(`https://a.example.com/${'x'.repeat(2000)}`, false)).toMatch(/2000/);
  });

  it('lets local development use http and its own machine', () => {
    expect(webhookUrlProblem('http://127.0.0.1:9000/', true)).toBeNull();
    expect(webhookUrlProblem('https://localhost:9000/', true)).toBeNull();
  });
});
