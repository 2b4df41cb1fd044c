import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { githubStandIn, type GithubUser } from '../support/github-stand-in.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { expectAccessible, mailedLink, openArea, screenshots, watchProblems, webContext } from '../support/web-app.js';

// Sign-in with a provider from the web app's sign-in page, on a platform where GitHub is set up
// (a stand-in on loopback): only its button appears, the browser goes to the provider and comes
// back signed in, with a session that names the provider.

let platform: Platform;
let browser: Browser;
let github: Server;
let nextUser: GithubUser | null = null;

beforeAll(async () => {
  github = githubStandIn(() => nextUser);
  await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
  const githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
  platform = await startPlatform({
    env: { GITHUB_CLIENT_ID: 'gh-client', GITHUB_CLIENT_SECRET: 'gh-secret', GITHUB_URL: githubUrl, GITHUB_API_URL: githubUrl },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  github?.close();
});

it('signs in with GitHub from the sign-in page and lands signed in', async () => {
  const email = `gh-${crypto.randomUUID()}@example.com`;
  nextUser = {
    id: Math.floor(Math.random() * 1e9),
    avatar_url: 'https://avatars.example/1',
    emails: [{ email, verified: true, primary: true }],
  };
  const context = await webContext(browser, platform);
  const page = await context.newPage();
  const problems = watchProblems(page);
  await openArea(page, `${platform.baseUrl}/login`);
  // Google is not set up here: only GitHub is offered.
  expect(await page.getByRole('button', { name: 'Continue with Google' }).count()).toBe(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Continue with GitHub' }).click();
  await page.waitForURL(`${platform.baseUrl}/`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
  const signIns = await platform.deps.sql<
    { method: string }[]
  >`select s.sign_in_method as method from sessions s join people p on p.id = s.person_id where p.email = ${email}`;
  expect(signIns.map((s) => s.method)).toContain('github');
  expect(problems).toEqual([]);
  await context.close();
});

it('comes back from GitHub to the page the sign-in started from (issue 29)', async () => {
  const email = `gh-${crypto.randomUUID()}@example.com`;
  nextUser = {
    id: Math.floor(Math.random() * 1e9),
    avatar_url: 'https://avatars.example/2',
    emails: [{ email, verified: true, primary: true }],
  };
  const context = await webContext(browser, platform);
  const page = await context.newPage();
  const problems = watchProblems(page);
  // A signed-out browser asking for the usage page is sent to sign in, and goes on there after.
  await page.goto(`${platform.baseUrl}/usage`);
  await page.waitForURL(`${platform.baseUrl}/login?next=%2Fusage`);
  await page.getByRole('button', { name: 'Continue with GitHub' }).click();
  await page.waitForURL(`${platform.baseUrl}/usage`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
  expect(problems).toEqual([]);
  await context.close();
});

// security-3 M3: the emailed link is bound to the browser that asked for it, and the page it opens
// spends nothing until the person presses its button.
it('signs in by the emailed link only on a press; a link asked for elsewhere names the masked account and warns first', async () => {
  const email = `link-${crypto.randomUUID()}@example.com`;
  const linkRow = () =>
    platform.deps.sql<
      { usedAt: Date | null }[]
    >`select used_at from email_sign_ins where email = ${email} order by created_at desc limit 1`;

  // The attacker asks for a link to their own account, in their own browser.
  const theirs = await webContext(browser, platform);
  const asking = await theirs.newPage();
  await openArea(asking, `${platform.baseUrl}/login`);
  await asking.fill('#email', email);
  await asking.click('button[type=submit]');
  await expect.poll(() => asking.textContent('[role=status]')).toContain('We sent a sign-in link');
  const link = await mailedLink(platform, email);

  // The victim opens it: nothing is spent on load, the page asks, and the browser is not signed in.
  const victim = await webContext(browser, platform);
  const page = await victim.newPage();
  const problems = watchProblems(page);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Sign in as l\u2022\u2022\u2022@example.com?' }).waitFor();
  expect(await page.getByRole('note').textContent()).toMatch(/asked for in another browser/);
  expect((await linkRow())[0].usedAt).toBeNull();
  expect((await victim.cookies()).map((c) => c.name)).not.toContain('__Host-pp_session');
  await expectAccessible(page);
  await screenshots(page, 'sign-in-link-elsewhere');

  // Only the explicit confirmation signs this browser in (the review's choice, docs/decisions/sign-in-and-sessions.md).
  await page.getByRole('button', { name: 'Sign in as l\u2022\u2022\u2022@example.com' }).click();
  await page.waitForURL(`${platform.baseUrl}/`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
  expect(problems).toEqual([]);

  // In the browser that asked, the page says whom it signs in and still waits for the press.
  await asking.fill('#email', email);
  await asking.click('button[type=submit]');
  await expect.poll(async () => (await mailedLink(platform, email)) !== link).toBe(true);
  await asking.goto(await mailedLink(platform, email));
  const press = asking.getByRole('button', { name: 'Sign in', exact: true });
  await press.waitFor();
  expect(await asking.getByRole('heading', { name: /\?$/ }).count()).toBe(0);
  expect((await linkRow())[0].usedAt).toBeNull();
  await press.click();
  await asking.waitForURL(`${platform.baseUrl}/`);
  expect((await linkRow())[0].usedAt).not.toBeNull();
  await theirs.close();
  await victim.close();
});
