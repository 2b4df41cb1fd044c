import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

// Sign-in throttles live in Redis: two api processes count the same requests.

let a: Platform;
let b: Platform;
beforeAll(async () => {
  const env = { QUEUE_PREFIX: `t-rate-${randomUUID().slice(0, 8)}`, SIGN_IN_PER_EMAIL: '2', SIGN_IN_PER_IP: '5' };
  [a, b] = await Promise.all([startPlatform({ env }), startPlatform({ env })]);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const mailsTo = async (email: string) =>
  (await readdir(join(a.deps.config.DATA_DIR, 'outbox'))).filter((f) => f.includes(email.replace(/[^a-z0-9@.-]/gi, '_'))).length;

it('sends at most the allowed sign-in links to one address, across api processes, then answers 429 with when to retry', async () => {
  const email = `rate-${randomUUID()}@example.com`;
  expect((await a.fetch('/api/auth/email', { method: 'POST', json: { email } })).status).toBe(200);
  expect((await b.fetch('/api/auth/email', { method: 'POST', json: { email: email.toUpperCase() } })).status).toBe(200);
  const third = await a.fetch('/api/auth/email', { method: 'POST', json: { email } });
  expect(third.status).toBe(429);
  expect(third.body).toMatchObject({ error: 'at most 2 sign-in links to one email address in 15 minutes', reason: 'rate' });
  expect(third.body.retryAfter).toBeGreaterThan(0);
  expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await mailsTo(email)).toBe(2);

  // Another address still gets its link, until the client address has made its five requests.
  expect((await b.fetch('/api/auth/email', { method: 'POST', json: { email: `other-${randomUUID()}@example.com` } })).status).toBe(200);
  expect((await a.fetch('/api/auth/device', { method: 'POST' })).status).toBe(200);
  const past = await b.fetch('/api/auth/device', { method: 'POST' });
  expect(past.status).toBe(429);
  expect(past.body).toMatchObject({ error: 'at most 5 sign-in requests from one address in 15 minutes', reason: 'rate' });
});
