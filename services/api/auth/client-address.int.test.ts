import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

// Who the client is, as the per-address sign-in throttle counts it, over real HTTP (fastify's
// inject would set the peer address itself). By default no proxy is trusted: a forged
// X-Forwarded-For changes nothing. With TRUST_PROXY=1 the address the one proxy saw counts.

let direct: Platform;
let behindOne: Platform;
beforeAll(async () => {
  [direct, behindOne] = await Promise.all([
    startPlatform({ env: { SIGN_IN_PER_IP: '3' } }),
    startPlatform({ env: { SIGN_IN_PER_IP: '2', TRUST_PROXY: '1' } }),
  ]);
});
afterAll(async () => {
  await direct?.close();
  await behindOne?.close();
});

const deviceSignIn = (p: Platform, forwardedFor: string) =>
  p.fetch('/api/auth/device', { method: 'POST', headers: { 'x-forwarded-for': forwardedFor } });

it('with the default settings a forged X-Forwarded-For is ignored: every request counts against the real address', async () => {
  for (const forged of ['203.0.113.1', '203.0.113.2', '198.51.100.3']) expect((await deviceSignIn(direct, forged)).status).toBe(200);
  const fourth = await deviceSignIn(direct, '192.0.2.4');
  expect(fourth.status).toBe(429);
  expect(fourth.body).toMatchObject({ error: 'at most 3 sign-in requests from one address in 15 minutes', reason: 'rate' });
});

it('with TRUST_PROXY=1 the address the proxy appended counts, not what the client wrote before it', async () => {
  // The client forges a first entry each time; the proxy appends the address it saw: 203.0.113.5.
  expect((await deviceSignIn(behindOne, '10.1.1.1, 203.0.113.5')).status).toBe(200);
  expect((await deviceSignIn(behindOne, '10.2.2.2, 203.0.113.5')).status).toBe(200);
  expect((await deviceSignIn(behindOne, '10.3.3.3, 203.0.113.5')).status).toBe(429);
  // Another client behind the same proxy has its own count.
  expect((await deviceSignIn(behindOne, '203.0.113.6')).status).toBe(200);
});
