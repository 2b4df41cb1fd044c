import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { waitFor } from '../support/wait-for.js';

// Visits as the builder reads them (spec 2.5, listVisits), written by the shell in a real browser:
// visible seconds per app while the viewer is in, and an end when they leave.

let platform: Platform;
let browser: Browser;
// The shell flushes its time every half second: the test waits for seconds credited, never on a clock.
platformAndChromium((p, b) => ([platform, browser] = [p, b]), { SHELL_FLUSH_MS: '500' });

describe('a visit says what happened', () => {
  it('shows seconds per app while the viewer is in, and ends when they leave, seconds after it started', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url, link } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada Prospect' },
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const beacons: string[] = [];
    page.on('response', (res) => {
      if (/\/room\/[^/]+\/(beat|leave)$/.test(res.url())) beacons.push(`${new URL(res.url()).pathname.split('/').pop()} ${res.status()}`);
    });

    const visits = () => person.client.call('listVisits', { params: { projectId: project.id } });
    await page.goto(url);
    await answerWhoAreYou(page);
    await appFrame(page, 'admin');
    await waitFor('2 s on admin', async () => ((await visits())[0]?.time.admin ?? 0) >= 2);
    await page.click('[role="tab"][data-tab="web"]');
    await appFrame(page, 'web');

    // While the viewer is still in: the seconds so far, as the flushes bring them.
    const under = await waitFor('the time so far', async () => {
      const [v] = await visits();
      return v && (v.time.admin ?? 0) >= 2 && (v.time.web ?? 0) >= 4 ? v : null;
    });
    expect(under.linkId).toBe(link.id);
    expect(under.endedAt).toBeNull();
    expect(under.time.admin).toBeLessThanOrEqual(30);

    // Leaving: the pagehide beacon ends the visit now, not at its start.
    await page.close({ runBeforeUnload: true });
    const ended = await waitFor(
      'the visit to end',
      async () => {
        const [v] = await visits();
        return v?.endedAt ? v : null;
      },
      20_000,
    );
    const lasted = (Date.parse(ended.endedAt!) - Date.parse(ended.startedAt)) / 1000;
    expect(lasted).toBeGreaterThanOrEqual(5);
    expect(lasted).toBeLessThan(120);
    expect(ended.time.admin).toBeGreaterThanOrEqual(2);
    expect(ended.time.web).toBeGreaterThanOrEqual(4);
    expect(ended.time.admin + ended.time.web).toBeLessThanOrEqual(lasted + 5);
    // Every beacon the shell sent was taken.
    expect(beacons.filter((b) => !b.endsWith(' 200'))).toEqual([]);
    await context.close();
  });
});
