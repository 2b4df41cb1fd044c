import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductEvent } from '@demo-rooms/contract';
import { eventsOf } from '../../services/data/product-events.sql.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../test/support/room.js';
import type { Consumer } from './consumer.js';
import { fanOut } from './fanout.js';

// The product-events outbox (issue 34): each event is written with its fact, never for a bot or
// a preview, and the fan-out hands each event to each consumer once, again after a failure.
// Every query and every drain is scoped to this file's own workspaces (the outbox is shared).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

async function roomWithLink() {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Grace Prospect' },
  });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  const kinds = async () => (await eventsOf(platform.deps.sql, workspaceId)).reverse().map(told);
  return { person, project, url, link, workspaceId, kinds };
}

/** An event in a few words: its kind, and the stages or the answer. */
const told = (e: ProductEvent) =>
  e.kind === 'link.stage_changed'
    ? `${e.kind} ${e.data.from}→${e.data.to}`
    : e.kind === 'next_step.answered'
      ? `${e.kind} ${e.data.answer}`
      : e.kind;

/** A consumer that remembers what it was handed, and can be told to fail once. */
function recorder(name: string) {
  const seen: string[] = [];
  let failNext = false;
  const consumer: Consumer = {
    name,
    async handle(_deps, events) {
      if (failNext) {
        failNext = false;
        throw new Error('a consumer failing on purpose');
      }
      seen.push(...events.map((e) => e.id));
    },
  };
  return { consumer, seen, failOnce: () => void (failNext = true) };
}

it('writes each event with its fact: the first open, answers, comments, stage moves and the visit end', async () => {
  const r = await roomWithLink();
  const room = await enterRoom(platform, r.url);
  await hit(platform, `${room.base}/arrive`, { method: 'POST', jar: room.jar, json: {} });
  const post = (path: string, json: unknown) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, json });
  expect((await post('answer', { step: 'later' })).status).toBe(200);
  const comment = await post('comments', {
    appId: 'web',
    screen: '/',
    body: 'The total looks wrong',
    position: { x: 0.2, y: 0.5 },
    area: null,
    device: 'laptop',
    screenshot: null,
    screenshotNote: 'no-answer',
  });
  expect(comment.status).toBe(200);
  expect((await post('leave', {})).status).toBe(200);
  // A second entry of the same link is not a first open.
  await enterRoom(platform, r.url);
  // The builder places the link by hand: the stage they see moves.
  await r.person.client.call('setStage', { params: { linkId: r.link.id }, body: { stage: 'yes' } });
  expect(await r.kinds()).toEqual([
    'link.opened',
    'link.stage_changed sent→opened',
    'next_step.answered later',
    'link.stage_changed opened→later',
    'comment.left',
    'visit.ended',
    'link.stage_changed later→yes',
  ]);
  const events = await eventsOf(platform.deps.sql, r.workspaceId);
  const ended = events.find((e) => e.kind === 'visit.ended')!;
  expect(ended).toMatchObject({ linkId: r.link.id, viewer: { name: 'Ada Viewer', company: null }, data: { seconds: 0, apps: [] } });
  const left = events.find((e) => e.kind === 'comment.left')!;
  expect(left.data).toMatchObject({ body: 'The total looks wrong' });
});

it('writes nothing for a link-preview bot, a scanner or the builder’s preview', async () => {
  const r = await roomWithLink();
  for (const agent of ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'facebookexternalhit/1.1', 'curl/8.5.0']) {
    const card = await hit(platform, new URL(r.url).pathname, { jar: new Map(), headers: { 'user-agent': agent } });
    expect(card.status).toBe(200);
  }
  const preview = (await r.person.client.call('previewPass', { params: { projectId: r.project.id } })).url;
  const room = await enterRoom(platform, preview);
  await hit(platform, `${room.base}/arrive`, { method: 'POST', jar: room.jar, json: {} });
  await hit(platform, `${room.base}/leave`, { method: 'POST', jar: room.jar, json: {} });
  expect(await r.kinds()).toEqual([]);
});

describe('the fan-out', () => {
  it('hands each event to each consumer once, only the workspaces asked for, and again after a failure', async () => {
    const a = await roomWithLink();
    const b = await roomWithLink();
    await enterRoom(platform, a.url);
    await enterRoom(platform, b.url);
    const one = recorder(`t-one-${a.workspaceId.slice(0, 8)}`);
    const two = recorder(`t-two-${a.workspaceId.slice(0, 8)}`);
    const aIds = (await eventsOf(platform.deps.sql, a.workspaceId)).map((e) => e.id).sort();

    two.failOnce();
    await expect(fanOut(platform.deps, { consumers: [one.consumer, two.consumer], workspaceIds: [a.workspaceId] })).rejects.toThrow(
      /consumer\(s\) failed: t-two/,
    );
    expect(one.seen.sort()).toEqual(aIds);
    expect(two.seen).toEqual([]);

    // The failed consumer gets its events on the next run; the other has none left.
    const handled = await fanOut(platform.deps, { consumers: [one.consumer, two.consumer], workspaceIds: [a.workspaceId] });
    expect(handled).toEqual({ [one.consumer.name]: 0, [two.consumer.name]: aIds.length });
    expect(two.seen.sort()).toEqual(aIds);
    expect(one.seen).toHaveLength(aIds.length);

    // B's events were never touched by A's drains; a small batch takes them a few at a time.
    const bIds = (await eventsOf(platform.deps.sql, b.workspaceId)).map((e) => e.id).sort();
    const first = await fanOut(platform.deps, { consumers: [one.consumer], workspaceIds: [b.workspaceId], batch: 1 });
    expect(first).toEqual({ [one.consumer.name]: 1 });
    await fanOut(platform.deps, { consumers: [one.consumer], workspaceIds: [b.workspaceId] });
    expect(one.seen.filter((id) => bIds.includes(id)).sort()).toEqual(bIds);
  });
});
