import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueToken } from '../../services/ops/ops.service.js';
import { launchChromium } from '../support/browser.js';
import { mailedToken as mailedTokenIn, mailsTo, startPlatform, type Platform } from '../support/platform.js';

// Passkeys in headless Chromium with a virtual authenticator (the DevTools protocol's WebAuthn
// domain): register one while signed in, sign out, sign in with it; a replayed answer and one
// made on another origin are refused. WebAuthn takes no IP address as RP id, so the platform is
// addressed as localhost (a secure context over plain http).

let platform: Platform;
let browser: Browser;
let phishing: Server;
let origin: string;
let phishingOrigin: string;

beforeAll(async () => {
  platform = await startPlatform();
  origin = platform.baseUrl.replace('127.0.0.1', 'localhost');
  Object.assign(platform.deps.config, { publicUrl: origin });
  browser = await launchChromium();
  // Another origin under the same RP id (another port of localhost): what a relaying phishing page would be.
  phishing = createServer((_req, res) => res.setHeader('content-type', 'text/html').end('<!doctype html><title>Look-alike</title>'));
  await new Promise<void>((resolve) => phishing.listen(0, '127.0.0.1', resolve));
  phishingOrigin = `http://localhost:${(phishing.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => phishing?.close(resolve));
  await platform?.close();
});

const mailedToken = (email: string) => mailedTokenIn(platform.deps.config.DATA_DIR, email);

/**
 * A page with a virtual authenticator that verifies its user (a PIN or biometric), as the platform
 * requires; `verifies: false` makes one that only proves presence (a found security key, no PIN).
 */
async function withAuthenticator(context: BrowserContext, verifies = true): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: verifies,
      isUserVerified: verifies,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

/** Signed in the ordinary way: the link asked for from this page (its nonce cookie) and spent here. */
async function signInByLink(page: Page, email: string) {
  expect((await post(page, '/api/auth/email', { email })).status).toBe(200);
  expect((await post(page, '/api/auth/email/verify', { token: await mailedToken(email) })).status).toBe(200);
}

/** A same-origin request from the page, with its cookie, as the app makes them. */
const post = (page: Page, path: string, body?: unknown) =>
  page.evaluate(
    async ([path, body]) => {
      const res = await fetch(
        path as string,
        body === undefined
          ? { method: 'POST' }
          : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      return { status: res.status, json: await res.json() };
    },
    [path, body] as const,
  );

const assertion = (page: Page, options: unknown) =>
  page.evaluate(async (options) => {
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options as never) });
    return (credential as PublicKeyCredential).toJSON();
  }, options);

it('registers a passkey, signs out, signs in with it; refuses a replayed and a cross-origin answer', async () => {
  const email = `passkey-${crypto.randomUUID()}@example.com`;
  await issueToken(platform.deps.sql, email, { name: 'Pass Key' });
  const context = await browser.newContext();
  const page = await withAuthenticator(context);
  await page.goto(`${origin}/healthz`);
  // Signed in the ordinary way first: the emailed link, spent from the page, sets the cookie.
  await signInByLink(page, email);

  // Register.
  const creation = await post(page, '/api/me/passkeys/options');
  expect(creation.status).toBe(200);
  expect(creation.json).toMatchObject({
    rp: { id: 'localhost' },
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const registered = await page.evaluate(async (options) => {
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options as never),
    });
    const json = (credential as PublicKeyCredential).toJSON();
    const res = await fetch('/api/me/passkeys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: json }),
    });
    return { status: res.status, json: await res.json(), answer: json };
  }, creation.json);
  expect(registered.status).toBe(200);
  expect(registered.json).toEqual([
    {
      id: expect.any(String),
      name: null,
      kind: expect.any(String),
      backedUp: expect.any(Boolean),
      createdAt: expect.any(String),
      lastUsedAt: null,
    },
  ]);
  // The person hears of it by mail (security-3 M4).
  expect((await mailsTo(platform.deps.config.DATA_DIR, email))[0]).toMatch(
    /Subject: A new way to sign in was added[\s\S]*A passkey was just added/,
  );
  // The same registration answer again: its challenge is spent.
  expect((await post(page, '/api/me/passkeys', { response: registered.answer })).json).toMatchObject({ reason: 'passkey' });

  // Sign out.
  expect((await post(page, '/api/auth/logout')).status).toBe(200);
  expect(await page.evaluate(() => fetch('/api/me/account').then((r) => r.status))).toBe(401);

  // Sign in with the passkey: no email typed, the authenticator offers its discoverable credential.
  const request = await post(page, '/api/auth/passkey/options');
  expect(request.status).toBe(200);
  expect(request.json.allowCredentials ?? []).toEqual([]);
  const answer = await assertion(page, request.json);
  const signedIn = await post(page, '/api/auth/passkey', { response: answer });
  expect(signedIn.status).toBe(200);
  const me = await page.evaluate(() => fetch('/api/me/account').then((r) => r.json()));
  expect(me.email).toBe(email);
  const sessions = await page.evaluate(() => fetch('/api/me/sessions').then((r) => r.json()));
  expect(sessions.find((s: { current: boolean }) => s.current)).toMatchObject({ signInMethod: 'passkey', device: 'Chrome on Linux' });
  expect((await page.evaluate(() => fetch('/api/me/passkeys').then((r) => r.json())))[0].lastUsedAt).not.toBeNull();
  expect(await page.evaluate(() => fetch('/api/me/sign-in').then((r) => r.json()))).toMatchObject({ passkeys: 1, magicLinks: true });

  // Replayed: the same answer a second time.
  const replay = await post(page, '/api/auth/passkey', { response: answer });
  expect(replay.status).toBe(422);
  expect(replay.json).toMatchObject({ reason: 'passkey' });

  // Cross-origin: a look-alike page on another origin relays a fresh challenge to the authenticator.
  const relayed = await platform.fetch('/api/auth/passkey/options', { method: 'POST' });
  await page.goto(`${phishingOrigin}/`);
  const phished = await assertion(page, relayed.body);
  const refused = await platform.fetch('/api/auth/passkey', { method: 'POST', json: { response: phished } });
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({ reason: 'passkey', detail: expect.stringMatching(/origin/i) });
  expect(refused.headers.get('set-cookie')).toBeNull();
  await context.close();
});

// security-3 L4: a passkey is a whole sign-in, so the authenticator must verify its user. A client
// that asks the authenticator for less than the platform's options say (as a script can) gets an
// answer without the UV flag, and the platform refuses it, to register and to sign in.
it('refuses a registration and a sign-in whose authenticator did not verify the user', async () => {
  const email = `uv-${crypto.randomUUID()}@example.com`;
  await issueToken(platform.deps.sql, email, { name: 'No Pin' });
  const context = await browser.newContext();
  const page = await withAuthenticator(context, false);
  await page.goto(`${origin}/healthz`);
  await signInByLink(page, email);

  const creation = await post(page, '/api/me/passkeys/options');
  const lax = { ...creation.json, authenticatorSelection: { ...creation.json.authenticatorSelection, userVerification: 'discouraged' } };
  const registered = await page.evaluate(async (options) => {
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options as never),
    });
    const res = await fetch('/api/me/passkeys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: (credential as PublicKeyCredential).toJSON() }),
    });
    return { status: res.status, json: await res.json() };
  }, lax);
  expect(registered).toMatchObject({ status: 422, json: { reason: 'passkey', detail: expect.stringMatching(/verif/i) } });
  expect(await page.evaluate(() => fetch('/api/me/passkeys').then((r) => r.json()))).toEqual([]);

  await context.close();

  // A passkey registered with verification, then used by its authenticator without verifying.
  const second = await browser.newContext();
  const keyPage = await second.newPage();
  const cdp = await second.newCDPSession(keyPage);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await keyPage.goto(`${origin}/healthz`);
  await signInByLink(keyPage, email);
  const options = await post(keyPage, '/api/me/passkeys/options');
  const made = await keyPage.evaluate(async (options) => {
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options as never),
    });
    const res = await fetch('/api/me/passkeys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: (credential as PublicKeyCredential).toJSON() }),
    });
    return res.status;
  }, options.json);
  expect(made).toBe(200);
  expect((await post(keyPage, '/api/auth/logout')).status).toBe(200);

  // The same credential in an authenticator that cannot verify its user (its key copied over).
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  const { authenticatorId: noPin } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'usb',
      hasResidentKey: false,
      hasUserVerification: false,
      isUserVerified: false,
      automaticPresenceSimulation: true,
    },
  });
  for (const credential of credentials)
    await cdp.send('WebAuthn.addCredential', { authenticatorId: noPin, credential: { ...credential, isResidentCredential: false } });
  const request = await post(keyPage, '/api/auth/passkey/options');
  expect(request.json).toMatchObject({ userVerification: 'required' });
  const allow = credentials.map((c) => ({ type: 'public-key', id: Buffer.from(c.credentialId, 'base64').toString('base64url') }));
  const unverified = await assertion(keyPage, { ...request.json, userVerification: 'discouraged', allowCredentials: allow });
  const refused = await post(keyPage, '/api/auth/passkey', { response: unverified });
  expect(refused).toMatchObject({ status: 422, json: { reason: 'passkey', detail: expect.stringMatching(/verif/i) } });
  expect(await keyPage.evaluate(() => fetch('/api/me/account').then((r) => r.status))).toBe(401);
  await second.close();
});
