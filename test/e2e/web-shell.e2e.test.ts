import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { expectAccessible, openArea, screenshots, signedInBuilder, watchProblems, webContext } from '../support/web-app.js';

// The web app's frame: served on the platform origin with long-cached hashed assets and a strict
// policy, the sign-in page and the signed-in shell accessible at a phone's and a desktop's width,
// every area reachable from the keyboard.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

it('serves index.html uncached under a strict policy, and hashed assets cached for a year, compressed', async () => {
  const page = await platform.fetch('/login', { headers: { 'accept-encoding': 'gzip, br' } });
  expect(page.status).toBe(200);
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  const html = String(page.body);
  expect(html).toContain('<meta name="pp-config"');
  const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)![1];
  const asset = await fetch(platform.baseUrl + script, { headers: { 'accept-encoding': 'gzip' } });
  expect(asset.status).toBe(200);
  expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(asset.headers.get('content-type')).toContain('javascript');
  expect(asset.headers.get('content-encoding')).toBe('gzip');
  expect((await fetch(platform.baseUrl + '/assets/nothing-here.js')).status).toBe(404);
});

it('sends a signed-out browser from any page of the app to sign in, and names where it goes after', async () => {
  const res = await fetch(`${platform.baseUrl}/pipeline`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/login?next=%2Fpipeline');
});

it('shows the sign-in page accessibly, with every way in', async () => {
  // WebAuthn takes no IP address as RP id: the platform is addressed as localhost, where a passkey can work.
  const keep = platform.deps.config.publicUrl;
  const origin = platform.baseUrl.replace('127.0.0.1', 'localhost');
  Object.assign(platform.deps.config, { publicUrl: origin });
  const context = await webContext(browser, platform);
  try {
    const page = await context.newPage();
    const problems = watchProblems(page);
    await openArea(page, `${origin}/login`);
    expect(await page.getByRole('button', { name: 'Email me a sign-in link' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'sign-in');
    expect(problems).toEqual([]);
  } finally {
    Object.assign(platform.deps.config, { publicUrl: keep });
    await context.close();
  }
});

it("offers passkeys only where one can work: not on an IP address, nor on another name than the platform's (issue 29)", async () => {
  const context = await webContext(browser, platform);
  const page = await context.newPage();
  const problems = watchProblems(page);
  // The platform at an IP address: no passkey can belong to it.
  await openArea(page, `${platform.baseUrl}/login`);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).waitFor();
  expect(await page.getByRole('button', { name: /passkey/ }).count()).toBe(0);
  expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('email');
  // The platform at localhost, the page opened at another name (127.0.0.1): the answer would not verify.
  const keep = platform.deps.config.publicUrl;
  Object.assign(platform.deps.config, { publicUrl: platform.baseUrl.replace('127.0.0.1', 'localhost') });
  try {
    await openArea(page, `${platform.baseUrl}/login`);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).waitFor();
    expect(await page.getByRole('button', { name: /passkey/ }).count()).toBe(0);
  } finally {
    Object.assign(platform.deps.config, { publicUrl: keep });
  }
  expect(problems).toEqual([]);
  await context.close();
});

it('frames every area with the workspace, the areas and the person, reachable by keyboard', async () => {
  const { person, context } = await signedInBuilder(platform, browser);
  const page = await context.newPage();
  // Free has no pipeline: the pipeline area's board answers 402, which the area puts in words.
  const problems = watchProblems(page, [/^402 .*\/api\/board$/, /status of 402/]);
  await openArea(page, `${platform.baseUrl}/`);
  await expect.poll(() => page.textContent('#who')).toBe(person.email);
  await expectAccessible(page);
  // g then a letter jumps between areas, as in Linear.
  await page.keyboard.press('g');
  await page.keyboard.press('b');
  await page.waitForURL(`${platform.baseUrl}/pipeline`);
  expect(await page.getByRole('link', { name: 'Pipeline' }).getAttribute('aria-current')).toBe('page');
  // The first Tab reaches the skip link.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  await screenshots(page, 'shell');
  expect(problems).toEqual([]);
  await context.close();
});
