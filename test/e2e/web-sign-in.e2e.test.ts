import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { githubStandIn, type GithubUser } from '../support/github-stand-in.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { expectAccessible, openArea, watchProblems, webContext } from '../support/web-app.js';

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
  platform = await startPlatform({ env: { GITHUB_CLIENT_ID: 'gh-client', GITHUB_CLIENT_SECRET: 'gh-secret', GITHUB_URL: githubUrl, GITHUB_API_URL: githubUrl } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  github?.close();
});

it('signs in with GitHub from the sign-in page and lands signed in', async () => {
  const email = `gh-${crypto.randomUUID()}@example.com`;
  nextUser = { id: Math.floor(Math.random() * 1e9), avatar_url: 'https://avatars.example/1', emails: [{ email, verified: true, primary: true }] };
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
  const signIns = await platform.deps.sql<{ method: string }[]>`select s.sign_in_method as method from sessions s join people p on p.id = s.person_id where p.email = ${email}`;
  expect(signIns.map((s) => s.method)).toContain('github');
  expect(problems).toEqual([]);
  await context.close();
});
