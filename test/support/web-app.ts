import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { SESSION_COOKIE } from '@demo-rooms/contract';
import { mailedSignInLink, type Platform } from './platform.js';

// Driving the builder's web app (services/web) in Chromium: a browser signed in as a person, what
// went wrong on a page (console errors, refused requests), axe-core's verdict, and screenshots at a
// phone's and a desktop's width into test-output/screenshots/ (named in the README).

export const SCREENSHOTS = join(import.meta.dirname, '../../test-output/screenshots');
export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };
/** The phone the builder of issue 47 held (an iPhone 12 to 15's CSS width). */
export const WIDE_PHONE = { width: 390, height: 844 };

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

type Person = Awaited<ReturnType<Platform['person']>>;

/** A person with a web session, and a browser context holding its cookie: signed in. */
export async function signedInBuilder(platform: Platform, browser: Browser, opts: Parameters<Platform['person']>[0] = {}) {
  const person = await platform.person({ ...opts, kind: 'web' });
  const context = await webContext(browser, platform, person);
  return { person, context };
}

export async function webContext(browser: Browser, platform: Platform, person?: Person, viewport = DESKTOP): Promise<BrowserContext> {
  // A phone's width is a phone (isMobile): its layout viewport widens to whatever the page lays
  // out, as a real phone's does, so a page too wide shows in scrollWidth, never as a scroll bar.
  const phone = viewport.width < 900;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
  // axe-core comes in before the page's own scripts, as devtools would add it (not subject to the
  // page's CSP, which allows no inline script).
  await context.addInitScript({ path: axeSource });
  // The cookie the emailed link would have set (Secure, as __Host- demands; loopback counts as secure).
  const host = new URL(platform.baseUrl).hostname;
  if (person)
    await context.addCookies([
      { name: SESSION_COOKIE, value: person.token, domain: host, path: '/', secure: true, httpOnly: true, sameSite: 'Lax' },
    ]);
  return context;
}

/** Everything a page got wrong: errors in the console and refused requests (unless expected). */
export function watchProblems(page: Page, expected: RegExp[] = []) {
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && !expected.some((e) => e.test(m.text())) && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on(
    'response',
    (r) => r.status() >= 400 && !expected.some((e) => e.test(`${r.status()} ${r.url()}`)) && problems.push(`${r.status()} ${r.url()}`),
  );
  return problems;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.2 A and AA). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
}

export async function expectAccessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

/** The page at a phone's and a desktop's width, written as <name>-360.png and <name>-1280.png. */
export async function screenshots(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.viewportSize();
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50); // one frame for the layout to settle
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/** Opens an address of the app and waits until its data has come (no skeleton left). */
export async function openArea(page: Page, url: string) {
  await page.goto(url);
  await page.waitForSelector('main#content, .plain main');
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, { timeout: 15_000 });
}

/** The sign-in link in the newest mail to `email` (no SMTP in tests: the outbox folder). */
export async function mailedLink(platform: Platform, email: string): Promise<string> {
  return mailedSignInLink(platform.deps.config.DATA_DIR, email);
}

/**
 * Opens the newest sign-in link mailed to `email` in `page` and signs in with the page's button:
 * opening the link spends nothing (security-3 M3), so the person presses "Sign in".
 */
export async function signInByMailedLink(page: Page, platform: Platform, email: string) {
  await page.goto(await mailedLink(platform, email));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Drags with the mouse from the middle of one element to the middle of another, in small steps (dnd-kit's PointerSensor). */
export async function drag(page: Page, from: Locator, to: Locator) {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2 + 10, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + Math.min(b.height / 2, 60), { steps: 15 });
  await page.mouse.up();
}
