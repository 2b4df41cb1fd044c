import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { createClient } from '@demo-rooms/contract';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { deployStaticRoom } from '../support/room.js';
import { signInByMailedLink } from '../support/web-app.js';

// A newcomer's first hour, in Chromium: the platform's address leads to sign-in, the emailed link
// signs in, `pitch login`'s address approves the tool, and the preview address `pitch deploy`
// prints opens the room.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

it('signs in from the sign-in page with the emailed link, then approves the pitch tool', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));

  await page.goto(platform.baseUrl + '/');
  expect(new URL(page.url()).pathname).toBe('/login');
  const email = `newcomer-${crypto.randomUUID()}@example.com`;
  await page.fill('#email', email);
  await page.click('button[type=submit]');
  await expect.poll(() => page.textContent('[role=status]')).toContain(`We sent a sign-in link to ${email}`);
  expect(await page.isVisible('#outbox')).toBe(true);

  await signInByMailedLink(page, platform, email);
  await page.waitForURL(platform.baseUrl + '/');
  await expect.poll(() => page.textContent('#who')).toBe(email);

  // `pitch login` starts a device login and sends the builder to its address.
  const tool = createClient({ baseUrl: platform.baseUrl });
  const start = await tool.call('deviceStart');
  expect(await tool.call('deviceToken', { body: { deviceCode: start.deviceCode } })).toMatchObject({ pending: true });
  await page.goto(start.verifyUrl);
  expect(await page.textContent('.code')).toBe(start.userCode);
  await page.click('button');
  await expect.poll(() => page.textContent('[role=status]')).toContain('Approved');
  const granted = await tool.call('deviceToken', { body: { deviceCode: start.deviceCode } });
  expect(granted).toHaveProperty('token');
  expect(problems).toEqual([]);
  await context.close();
});

it('sends a signed-out builder from the device page to sign in, and back to it', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const start = await createClient({ baseUrl: platform.baseUrl }).call('deviceStart');
  await page.goto(start.verifyUrl);
  expect(new URL(page.url()).pathname).toBe('/login');
  const email = `device-${crypto.randomUUID()}@example.com`;
  await page.fill('#email', email);
  await page.click('button[type=submit]');
  await expect.poll(() => page.textContent('[role=status]')).toContain('We sent');
  await signInByMailedLink(page, platform, email);
  await page.waitForURL((u) => u.pathname === '/device');
  expect(await page.textContent('.code')).toBe(start.userCode);
  await context.close();
});

it('refuses to send anyone off the platform after sign-in', async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${platform.baseUrl}/login?next=//evil.example/`);
  expect(await page.textContent('main')).not.toContain('evil.example');
  await page.context().close();
});

it('opens the room at the preview address a deploy prints', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  // What `pitch deploy` prints on stdout (services/cli/deploy-steps/deploy-flow.ts printWaysIn).
  const { url } = await person.client.call('previewPass', { params: { projectId: project.id } });
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await page.waitForSelector('iframe[data-app]', { state: 'attached' });
  expect(await page.title()).toContain(project.name);
  await page.context().close();
});

it("takes an invited person from the invitation's address through sign-in to joining the team", async () => {
  const owner = await platform.person({ name: 'Olive Owner' });
  const team = await owner.client.call('createTeam', { body: { name: 'Field sales' } });
  await platform.deps.sql`update workspaces set plan = 'team' where id = ${team.id}`;
  const email = `invited-${crypto.randomUUID()}@example.com`;
  const { url } = await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email } });

  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
  expect(new URL(page.url()).pathname).toBe('/login');
  await page.fill('#email', email);
  await page.click('button[type=submit]');
  await expect.poll(() => page.textContent('[role=status]')).toContain('We sent');
  await signInByMailedLink(page, platform, email);
  await page.waitForURL(url);
  await expect.poll(() => page.textContent('#invited')).toContain('Olive Owner invites you to Field sales');
  await page.click('button');
  await expect.poll(() => page.textContent('[role=status]')).toContain('You joined Field sales');
  const members = await owner.client.call('listMembers', { params: { workspaceId: team.id } });
  expect(members.map((m) => [m.email, m.role])).toEqual([
    [owner.email, 'owner'],
    [email, 'member'],
  ]);
  expect(problems).toEqual([]);

  // The address is spent: opened again, it says so and offers nothing.
  await page.goto(url);
  await expect.poll(() => page.textContent('#invited')).toContain('was used, revoked or has expired');
  expect(await page.isVisible('button')).toBe(false);
  await context.close();
});
