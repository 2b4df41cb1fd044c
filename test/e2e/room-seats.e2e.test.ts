import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { deployStaticRoom, enterRoom } from '../support/room.js';

// A seat is taken when the shell arrives, not when the page is fetched (issue 28, M2). A viewer
// whose page came while there was room, but whose shell arrives after the last seat went, is
// shown Demo full in the browser: the shell asks the address again, which says so.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

describe('seats in the browser', () => {
  it('shows Demo full when the room filled between the page and its shell arriving', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Prospect' } });
    const page = await (await browser.newContext()).newPage();
    // The shell's arrival is held until five others have taken every seat (Solo rooms hold 5).
    let release!: () => void;
    const filled = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/arrive', async (route) => {
      await filled;
      await route.continue();
    });
    await page.goto(url);
    await page.waitForSelector('#room-data', { state: 'attached' });
    for (let i = 0; i < 5; i++) await enterRoom(platform, url);
    release();
    await page.waitForSelector('text=Demo full');
    const [row] = await platform.deps.sql<{ n: number }[]>`select count(*)::int as n from visits where project_id = ${project.id}`;
    expect(row.n).toBe(5);
  });
});
