import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, hit, shellData, type Jar } from '../../test/support/room.js';
import { claimsOf } from '../data/link-claims.sql.js';
import { eventsOfLink } from '../data/room-events.sql.js';

// What the room writes down as evidence (issue 15): an open only once the shell runs, the events
// of a visit in one insert per request, and who claimed the link from which browser.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const phone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

async function linkedRoom() {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: { 'index.html': '<!doctype html><title>x</title>' },
    manifest: {
      kind: 'static',
      name: 'Evidence',
      output: 'dist',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
      story: [{ id: 'look', title: 'Look', say: 'Here.', app: 'web' }],
    },
  });
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Ada Buyer', viewerEmail: 'ada@buyer.example' },
  });
  return { person, project, url, link };
}

/** A browser opening the link: the page only, as a scanner passing for a browser would. */
async function openPage(url: string, headers: Record<string, string> = {}) {
  const jar: Jar = new Map();
  const page = await hit(platform, new URL(url).pathname, { jar, headers });
  const base = `/room/${shellData(page.text).sessionId}`;
  const post = (path: string, json: unknown) => hit(platform, `${base}/${path}`, { method: 'POST', jar, json, headers });
  return { jar, base, post };
}

const linkState = (linkId: string) => platform.deps.sql<{ stage: string; visits: number }[]>`
  select stage, (select count(*)::int from visits where link_id = l.id) as visits from links l where id = ${linkId}`;

describe('an open is the shell running', () => {
  it('a page fetched without its script starts no visit and opens nothing; the shell arriving starts the visit; saying who they are opens the link', async () => {
    const { url, link } = await linkedRoom();
    const viewer = await openPage(url);
    expect(await linkState(link.id)).toEqual([{ stage: 'sent', visits: 0 }]);
    expect(await eventsOfLink(platform.deps.sql, link.id)).toEqual([]);

    expect((await viewer.post('arrive', {})).status).toBe(200);
    // Only the who-are-you prompt seen: a visit, but the link is not opened (no alert, no webhook).
    expect(await linkState(link.id)).toEqual([{ stage: 'sent', visits: 1 }]);
    expect(await opened(link.id)).toBe(0);
    expect((await viewer.post('hello', { name: 'Ada Buyer' })).status).toBe(200);
    expect(await linkState(link.id)).toEqual([{ stage: 'opened', visits: 1 }]);
    // A reload's arrival finds the visit still open: one visit, one entry, one open.
    await viewer.post('arrive', {});
    await viewer.post('hello', { name: 'Ada Buyer' });
    expect(await linkState(link.id)).toEqual([{ stage: 'opened', visits: 1 }]);
    expect((await eventsOfLink(platform.deps.sql, link.id)).map((e) => e.kind)).toEqual(['entry']);
    expect(await opened(link.id)).toBe(1);
  });
});

/** The link's opened product events (alerts and webhooks read them). */
async function opened(linkId: string) {
  const [row] = await platform.deps.sql<
    { n: number }[]
  >`select count(*)::int as n from product_events where link_id = ${linkId} and kind = 'link.opened'`;
  return row.n;
}

describe('events', () => {
  it('writes what the visit did, with the coarse device, and nothing from a preview', async () => {
    const { url, link, person, project } = await linkedRoom();
    const viewer = await openPage(url, { 'user-agent': phone });
    await viewer.post('arrive', {});
    await viewer.post('hello', { name: 'Ada Buyer' });
    await platform.deps
      .sql`update visits set started_at = now() - interval '30 seconds', last_seen_at = now() - interval '30 seconds' where link_id = ${link.id}`;
    await viewer.post('beat', { time: { web: 12 }, shown: true });
    await viewer.post('run', { step: 'look' });
    await viewer.post('answer', { step: 'yes' });
    await viewer.post('beat', { time: {}, hidden: true });
    await viewer.post('leave', { time: {} });

    const events = await eventsOfLink(platform.deps.sql, link.id);
    expect(events.map((e) => [e.kind, e.subject, e.seconds])).toEqual([
      ['entry', null, 0],
      ['shown', null, 0],
      ['time', 'web', 12],
      ['step', 'look', 0],
      ['answer', 'yes', 0],
      ['hidden', null, 0],
      ['leave', null, 0],
    ]);
    expect(new Set(events.map((e) => e.device))).toEqual(new Set(['phone']));
    expect(new Set(events.map((e) => e.visitId)).size).toBe(1);

    const { url: preview } = await person.client.call('previewPass', { params: { projectId: project.id } });
    const previewer = await openPage(preview);
    await previewer.post('arrive', {});
    await previewer.post('beat', { time: { web: 3 } });
    const [{ n }] = await platform.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from room_events where project_id = ${project.id} and link_id is null`;
    expect(n).toBe(0);
  });
});

describe('claims', () => {
  it('records who said they were behind the link, from which browser', async () => {
    const { url, link } = await linkedRoom();
    const first = await openPage(url);
    await first.post('arrive', {});
    await first.post('hello', { name: 'Ada Buyer' });
    const second = await openPage(url, { 'user-agent': phone });
    await second.post('arrive', {});
    await second.post('hello', { name: 'Bo Colleague', email: 'bo@buyer.example' });

    const claims = await claimsOf(platform.deps.sql, link.id);
    expect(claims.map((c) => [c.name, c.email, c.device])).toEqual([
      ['Ada Buyer', null, 'desktop'],
      ['Bo Colleague', 'bo@buyer.example', 'phone'],
    ]);
    // Two browsers: each its own random id, kept only as a hash.
    expect(claims[0].browserHash).not.toBeNull();
    expect(claims[0].browserHash!.equals(claims[1].browserHash!)).toBe(false);
  });
});
