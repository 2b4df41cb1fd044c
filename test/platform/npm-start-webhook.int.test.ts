import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, SESSION_COOKIE } from '@demo-rooms/contract';
import { startNpmStart, type NpmStart } from '../support/npm-start.js';
import { cookieValue, mailedToken, SIGN_IN_NONCE_COOKIE } from '../support/platform.js';
import { waitFor } from '../support/wait-for.js';

// Issue 45's Done-when: "A webhook registered to http://127.0.0.1:<port> under `npm start`
// delivers a signed event." The real launcher (infra/local/start.mjs, by `npm start`) with a data
// dir of its own: a builder signs up by the emailed link (the outbox npm start writes), is put on
// a plan with webhooks by the operator command, adds an endpoint at a receiver this test runs on
// loopback, and sends it a test event, which npm start's own workers deliver. The receiver checks
// the signature as docs/decisions/webhooks.md tells receivers to (Standard Webhooks).

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let launcher: NpmStart | undefined;
const received: Received[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  launcher = await startNpmStart();
}, 300_000);

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  if (!launcher) return;
  const { saidStopped, leftovers } = await launcher.stop();
  if (process.env.NPM_START_LOG) writeFileSync(process.env.NPM_START_LOG, launcher.output());
  // Ctrl-C's promise: everything it started stops with it.
  expect(leftovers, `processes npm start left running (killed here)`).toEqual([]);
  expect(saidStopped, launcher.output().split('\n').slice(-30).join('\n')).toBe(true);
}, 180_000);

/** Signs a new builder up by the emailed link, as the web app's /login and /auth/email pages do. */
async function signUpByMail(baseUrl: string, dataDir: string, email: string) {
  const asked = await fetch(`${baseUrl}/api/auth/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ email }),
  });
  expect(asked.status).toBe(200);
  const nonce = cookieValue(asked.headers, SIGN_IN_NONCE_COOKIE)!;
  const token = await mailedToken(dataDir, email);
  const spent = await fetch(`${baseUrl}/api/auth/email/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl, cookie: `${SIGN_IN_NONCE_COOKIE}=${nonce}` },
    body: JSON.stringify({ token }),
  });
  expect(spent.status).toBe(200);
  const session = cookieValue(spent.headers, SESSION_COOKIE)!;
  expect(session).toBeTruthy();
  return createClient({ baseUrl, headers: { cookie: `${SESSION_COOKIE}=${session}`, origin: baseUrl } });
}

/** Standard Webhooks by hand: v1 = base64 HMAC-SHA256, keyed by the secret after `whsec_`, of `id.timestamp.body`. */
function signedBy(secret: string, got: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`;
  const expected = createHmac('sha256', key).update(signed).digest();
  return String(got.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((part) => {
      const [version, signature] = part.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('npm start and a webhook receiver on this machine (issue 45)', () => {
  it('says loopback receivers are allowed, and an endpoint at http://127.0.0.1:<port> gets a signed event', {
    timeout: 180_000,
  }, async () => {
    const { baseUrl, dataDir } = launcher!;
    expect(launcher!.output()).toMatch(/webhooks: local receivers allowed \(WEBHOOKS_ALLOW_PRIVATE=true\).*http:\/\/127\.0\.0\.1:<port>/);

    const email = `builder-${crypto.randomUUID()}@example.com`;
    const builder = await signUpByMail(baseUrl, dataDir, email);
    const plan = await launcher!.ops('plan', email, 'pro');
    expect(plan, plan.output).toMatchObject({ code: 0 });

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await builder.call('createWebhookEndpoint', { body: { url, kinds: ['link.opened'], description: 'on my machine' } });
    expect(created.endpoint).toMatchObject({ url, enabled: true });

    const sent = await builder.call('testWebhookEndpoint', { params: { endpointId: created.endpoint.id }, body: {} });
    const got = await waitFor('the test event at the loopback receiver', async () => received[0], 60_000);
    expect(received).toHaveLength(1);
    expect(got.headers['webhook-id']).toBe(`msg_${sent.eventId}`);
    expect(signedBy(created.secret, got)).toBe(true);
    expect(signedBy(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toBe(false);
    const event = new Webhook(created.secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(event).toMatchObject({ type: 'link.opened' });

    // The platform recorded the delivery as answered by the receiver.
    const delivery = await waitFor('the delivery recorded as succeeded', async () => {
      const ds = await builder.call('listWebhookDeliveries', { params: { endpointId: created.endpoint.id } });
      return ds.find((d) => d.id === sent.id && d.status === 'succeeded');
    });
    expect(delivery).toMatchObject({ id: sent.id, status: 'succeeded', attempts: [{ statusCode: 204 }] });
  });
});
