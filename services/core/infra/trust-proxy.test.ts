import { expect, it } from 'vitest';
import { loadConfig } from './config.js';

// TRUST_PROXY as the processes read it: a bad value stops the process at start, naming the setting.

const base = { DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x', APP_SECRET: 'a'.repeat(64) };
const trustProxy = (value?: string) => loadConfig({ ...base, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).TRUST_PROXY;

it('trusts no proxy unless told: unset, empty and 0 all mean the peer is the client', () => {
  expect(trustProxy()).toBe(false);
  expect(trustProxy('')).toBe(false);
  expect(trustProxy('0')).toBe(false);
});

it("takes a hop count, or the proxies' addresses and ranges as proxy-addr names them", () => {
  expect(trustProxy('1')).toBe(1);
  expect(trustProxy('2')).toBe(2);
  expect(trustProxy('10.0.0.0/8, fd00::/8,loopback')).toBe('10.0.0.0/8,fd00::/8,loopback');
  expect(trustProxy('192.168.1.7,10.0.0.0/255.0.0.0,uniquelocal,linklocal')).toBe('192.168.1.7,10.0.0.0/255.0.0.0,uniquelocal,linklocal');
});

it('refuses to start on a value that is not a hop count or proxy addresses, naming TRUST_PROXY', () => {
  for (const bad of ['true', 'ingress.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8', '-1', '1.5']) {
    expect(() => trustProxy(bad), bad).toThrow(/TRUST_PROXY: .*give the number of proxies in front/);
  }
});
