import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { eventsOfLink } from '../../services/data/room-events.sql.js';
import { claimsOf } from '../../services/data/link-claims.sql.js';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { waitFor } from '../support/wait-for.js';

// What the room writes down of real viewers in Chromium (issue 15): two viewers of one link, one
// switching apps, taking a story step and answering yes, the other a colleague it was forwarded
// to; and what a chat's unfurler, a mail scanner or a plain fetch of the address leaves: nothing.

let platform: Platform;
let browser: Browser;
// The shell flushes its time every half second, so the test waits for seconds credited, not on a clock.
platformAndChromium((p, b) => ([platform, browser] = [p, b]), { SHELL_FLUSH_MS: '500' });

const page = (title: string, colour: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body style="background:${colour}"><h1>${title}</h1></body></html>`;

it('records real viewers, and nothing of unfurlers, scanners and plain fetches', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: { 'index.html': page('Shop', '#d0ebff'), 'admin/index.html': page('Admin', '#fff3bf') },
    manifest: {
      kind: 'static',
      name: 'Evidence',
      output: 'dist',
      apps: [
        { id: 'web', name: 'Shop', path: '/', device: 'laptop' },
        { id: 'admin', name: 'Admin', path: '/admin/', device: 'laptop' },
      ],
      story: [
        { id: 'shop', title: 'The shop', say: 'Here.', app: 'web' },
        { id: 'admin', title: 'Admin', say: 'And here.', app: 'admin' },
      ],
    },
  });
  const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Buyer' } });

  // Nobody real yet: a Slack unfurl, Outlook's scanner, and a fetch that never runs the shell.
  for (const agent of [
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Mozilla/5.0 (compatible; Microsoft Office/16.0; Windows NT 10.0; Microsoft Outlook 16.0.12026; Pro)',
  ]) {
    expect((await fetch(url, { headers: { 'user-agent': agent } })).status).toBe(200);
  }
  const plain = await fetch(url, {
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36' },
  });
  expect(await plain.text()).toContain('room-data');
  const untouched = await person.client.call('listLinks', { params: { projectId: project.id } });
  expect(untouched[0].stage).toBe('sent');
  expect(await person.client.call('listVisits', { params: { projectId: project.id } })).toEqual([]);
  expect(await eventsOfLink(platform.deps.sql, link.id)).toEqual([]);

  // Ada: a few seconds on each app (timed here, until the room has credited them), the story's steps, and yes.
  const ada = await (await browser.newContext()).newPage();
  await ada.goto(url);
  await answerWhoAreYou(ada, 'Ada Buyer');
  await appFrame(ada, 'web');
  const credited = (app: string, seconds: number) =>
    waitFor(`${seconds} s on ${app}`, async () => {
      const visit = (await person.client.call('listVisits', { params: { projectId: project.id } })).find((v) => v.linkId === link.id);
      return (visit?.time[app] ?? 0) >= seconds;
    });
  let at = Date.now();
  await credited('web', 2);
  await ada.click('[role="tab"][data-tab="admin"]');
  const onWeb = (Date.now() - at) / 1000;
  await appFrame(ada, 'admin');
  at = Date.now();
  await credited('admin', 2);
  await ada.click('#story-toggle');
  await ada.click('.story [data-step="1"]');
  await ada.click('.story .offer-open');
  await ada.locator('#next').waitFor({ state: 'visible' });
  await ada.click('#next .step-answer[data-kind="yes"]');
  await ada.locator('dialog#email-ask').waitFor({ state: 'visible' });
  await ada.click('#email-form .skip');
  // The story's last step showed the admin app again: the time since the switch is admin's.
  const onAdmin = (Date.now() - at) / 1000;
  await ada.close({ runBeforeUnload: true });

  // Bo: the link forwarded to a colleague, on another browser, under another name.
  const bo = await (await browser.newContext()).newPage();
  await bo.goto(url);
  await answerWhoAreYou(bo, 'Bo Colleague');
  await appFrame(bo, 'web');
  await bo.close({ runBeforeUnload: true });

  // Cy, on a link of her own: looks around and takes the story's first step.
  const cyLink = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Cy Prospect' } });
  const cy = await (await browser.newContext()).newPage();
  await cy.goto(cyLink.url);
  await answerWhoAreYou(cy, 'Cy Prospect');
  await appFrame(cy, 'web');
  await cy.click('#story-toggle');
  await expect.poll(async () => (await eventsOfLink(platform.deps.sql, cyLink.link.id)).some((e) => e.kind === 'step')).toBe(true);
  await cy.close({ runBeforeUnload: true });

  await expect
    .poll(async () => (await eventsOfLink(platform.deps.sql, link.id)).filter((e) => e.kind === 'leave').length, { timeout: 15_000 })
    .toBe(2);
  const events = await eventsOfLink(platform.deps.sql, link.id);
  const sessions = [...new Set(events.map((e) => e.sessionId))];
  expect(sessions).toHaveLength(2);
  const kindsOf = (session: string | null) => events.filter((e) => e.sessionId === session).map((e) => e.kind);
  expect(kindsOf(sessions[0])).toEqual(expect.arrayContaining(['entry', 'step', 'answer', 'leave']));
  expect(events.filter((e) => e.kind === 'step').map((e) => e.subject)).toEqual(['shop', 'admin']);
  expect(kindsOf(sessions[1])).toEqual(expect.arrayContaining(['entry', 'leave']));
  expect((await person.client.call('listLinks', { params: { projectId: project.id } })).find((l) => l.id === link.id)!.stage).toBe('yes');
  expect((await claimsOf(platform.deps.sql, link.id)).map((c) => c.name)).toEqual(['Ada Buyer', 'Bo Colleague']);

  // The board: one yes (Ada's, forwarded to Bo) and one engaged (Cy's).
  const board = await person.client.call('projectBoard', { params: { projectId: project.id } });
  const adas = board.find((c) => c.id === link.id)!;
  const cys = board.find((c) => c.id === cyLink.link.id)!;
  expect(adas).toMatchObject({ stage: 'yes', suggested: 'yes', claims: 2, signals: { answers: ['yes'], storySteps: 2 } });
  expect(adas.forwarded).toEqual([expect.objectContaining({ name: 'Bo Colleague', why: expect.arrayContaining(['name', 'browser']) })]);
  expect(cys).toMatchObject({ stage: 'engaged', suggested: 'engaged' });

  // The journey: each session with its timeline.
  const journey = await person.client.call('journey', { params: { linkId: link.id } });
  expect(journey.sessions.map((x) => x.name)).toEqual(['Ada Buyer', 'Bo Colleague']);
  expect(journey.sessions[0].timeline.map((e) => e.kind)).toEqual(expect.arrayContaining(['entry', 'time', 'step', 'answer', 'leave']));
  expect(journey.tour).toEqual({ steps: 2, taken: 2 });

  // Analytics for today: the time per app within a few seconds of what Ada spent.
  const today = new Date().toISOString().slice(0, 10);
  const analytics = await person.client.call('projectAnalytics', { params: { projectId: project.id, from: today, to: today } });
  if (!analytics.full) throw new Error('solo has full analytics');
  expect(analytics.totals.views).toBe(3);
  expect(analytics.totals.answers).toEqual({ yes: 1 });
  expect(Math.abs((analytics.totals.time.admin ?? 0) - onAdmin)).toBeLessThanOrEqual(3);
  // Bo and Cy each spent a moment on the web app too.
  expect((analytics.totals.time.web ?? 0) - onWeb).toBeGreaterThanOrEqual(-3);
  expect((analytics.totals.time.web ?? 0) - onWeb).toBeLessThanOrEqual(8);
});
