import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { recordEvents, type RoomEvent } from '../../services/data/room-events.sql.js';
import type { Platform } from '../support/platform.js';
import { deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { DESKTOP, openArea, watchProblems, webContext, WIDE_PHONE } from '../support/web-app.js';

// The journey as a builder reads it (issue 47, item 8): a quarter of an hour on one app is one
// line, not 180 lines of "5 s on Storefront", and a session whose browser closed 15 minutes ago
// without a leave says it ended, and how, instead of "may still be going". At 1280 and 390 px.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const manifest = {
  kind: 'static',
  name: 'Journey lines',
  output: 'dist',
  apps: [{ id: 'web', name: 'Storefront', path: '/', device: 'laptop' }],
};

it('shows one line per run of time on an app, and a silent session as ended', async () => {
  const person = await platform.person({ plan: 'team', kind: 'web' });
  const { project } = await deployStaticRoom(platform, person, { manifest });
  const { link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Buyer' } });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  // As the room writes them: a beat every 5 s for 15 minutes, the last one 15 minutes ago, no leave.
  const now = Date.now();
  const ago = (s: number) => new Date(now - s * 1000);
  const beats: RoomEvent[] = Array.from({ length: 180 }, (_, i) => ({ kind: 'time', subject: 'web', seconds: 5, at: ago(1795 - 5 * i) }));
  await recordEvents(
    platform.deps.sql,
    { workspaceId, projectId: project.id, linkId: link.id, sessionId: randomUUID(), visitId: null, device: 'desktop' },
    [{ kind: 'entry', at: ago(1800) }, ...beats],
  );

  for (const viewport of [DESKTOP, WIDE_PHONE]) {
    const context = await webContext(browser, platform, person, viewport);
    const tab = await context.newPage();
    const problems = watchProblems(tab);
    await openArea(tab, `${platform.baseUrl}/journey/${link.id}`);
    const timeline = tab.getByRole('list', { name: 'Timeline of session 1' });
    await timeline.waitFor();
    const lines = await timeline.getByRole('listitem').allInnerTexts();
    expect(lines, `at ${viewport.width} px`).toHaveLength(2);
    expect(lines[0]).toMatch(/Entered the room$/);
    expect(lines[1]).toMatch(/15 min on Storefront$/);
    const about = await tab.locator('section', { has: timeline }).locator('p.muted').first().innerText();
    expect(about).not.toContain('may still be going');
    expect(about).toMatch(/ended .*when the browser went silent/);
    expect(problems).toEqual([]);
    await context.close();
  }
});
