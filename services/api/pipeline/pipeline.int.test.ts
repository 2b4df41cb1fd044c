import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { deployStaticRoom, enterRoom, hit } from '../../../test/support/room.js';

// The pipeline (spec 4.2; issue 15): boards with what the evidence suggests, the builder's own
// stage, outcome, follow-up and notes, who else claimed a link, and the 402 on Free.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

async function deal(plan = 'solo') {
  const person = await platform.person({ plan, name: 'Grace Seller' });
  const { project } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Ada Buyer', viewerEmail: 'ada@buyer.example' },
  });
  return { person, project, url, link, params: { linkId: link.id } };
}

describe('the board', () => {
  it('shows each link with the evidence: suggested stage, signals, claims and who else came', async () => {
    const { person, project, url, link } = await deal();
    const ada = await enterRoom(platform, url, { name: 'Ada Buyer' });
    await platform.deps
      .sql`update visits set started_at = now() - interval '40 seconds', last_seen_at = now() - interval '40 seconds' where link_id = ${link.id}`;
    await hit(platform, `${ada.base}/beat`, { method: 'POST', jar: ada.jar, json: { time: { web: 20, admin: 10 } } });
    await hit(platform, `${ada.base}/answer`, { method: 'POST', jar: ada.jar, json: { step: 'yes' } });
    await hit(platform, `${ada.base}/comments`, {
      method: 'POST',
      jar: ada.jar,
      json: {
        appId: 'web',
        screen: '/',
        body: 'Nice',
        position: { x: 0.5, y: 0.5 },
        area: null,
        device: 'laptop',
        screenshot: null,
        screenshotNote: 'no-answer',
      },
    });
    // The link forwarded: another browser, another name.
    await enterRoom(platform, url, { name: 'Bo Colleague' });

    const [card] = await person.client.call('projectBoard', { params: { projectId: project.id } });
    expect(card).toMatchObject({
      id: link.id,
      projectId: project.id,
      projectName: 'Room demo',
      stage: 'yes',
      suggested: 'yes',
      placed: false,
      outcome: null,
      followUp: { on: null, note: null },
      notes: 0,
      claims: 2,
      signals: { activeSeconds: 30, visits: 2, answers: ['yes'], comments: 1, storySteps: 0 },
    });
    expect(card.signals.appsSeen.sort()).toEqual(['admin', 'web']);
    expect(card.signals.lastSeenAt).not.toBeNull();
    expect(card.forwarded).toEqual([expect.objectContaining({ name: 'Bo Colleague', why: ['name', 'browser'] })]);
    expect(await person.client.call('board')).toEqual([card]);
    const [rec] = await person.client.call('pipeline');
    expect(rec).toMatchObject({ id: link.id, projectName: 'Room demo', stage: 'yes' });
  });

  it('places a stage by hand over the evidence, and hands it back with null', async () => {
    const { person, project, params } = await deal();
    const placed = await person.client.call('setStage', { params, body: { stage: 'later' } });
    expect(placed).toMatchObject({ stage: 'later', suggested: 'sent', placed: true });
    expect((await person.client.call('listLinks', { params: { projectId: project.id } }))[0].stage).toBe('later');
    const back = await person.client.call('setStage', { params, body: { stage: null } });
    expect(back).toMatchObject({ stage: 'sent', suggested: 'sent', placed: false });
  });

  it('sets the outcome and the follow-up, each changing only what it names', async () => {
    const { person, params } = await deal();
    await person.client.call('setStage', { params, body: { stage: 'engaged' } });
    const won = await person.client.call('setOutcome', { params, body: { outcome: 'won' } });
    expect(won).toMatchObject({ outcome: 'won', stage: 'engaged', followUp: { on: null, note: null } });
    const later = await person.client.call('followUp', { params, body: { on: '2026-12-01', note: 'Call after the board meeting' } });
    expect(later).toMatchObject({ outcome: 'won', stage: 'engaged', followUp: { on: '2026-12-01', note: 'Call after the board meeting' } });
    const cleared = await person.client.call('followUp', { params, body: { on: null, note: null } });
    expect(cleared.followUp).toEqual({ on: null, note: null });
    expect((await person.client.call('setOutcome', { params, body: { outcome: null } })).outcome).toBeNull();
  });

  it('refuses bad bodies with 400 and changes nothing', async () => {
    const { person, link, params } = await deal();
    const post = (path: string, json: unknown) =>
      platform.fetch(`/api/links/${link.id}/${path}`, { method: 'POST', token: person.token, json });
    for (const [path, body] of [
      ['stage', { stage: 'maybe' }],
      ['stage', {}],
      ['outcome', { outcome: 'x' }],
      ['follow-up', { on: 'tomorrow', note: null }],
      ['follow-up', { on: '2026-02-30', note: null }],
      ['follow-up', { on: '0000-01-01', note: null }],
      ['follow-up', { on: null, note: '' }],
      ['follow-up', { on: null, note: 'x'.repeat(2001) }],
      ['notes', { body: '' }],
      ['notes', { body: ' \n\t ' }],
      ['notes', { body: 'x'.repeat(2001) }],
    ] as const) {
      expect((await post(path, body)).status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
    }
    const [card] = await person.client.call('board');
    expect(card).toMatchObject({ placed: false, outcome: null, followUp: { on: null, note: null }, notes: 0 });
    expect(await person.client.call('listNotes', { params })).toEqual([]);
  });
});

describe('notes', () => {
  it('lists newest first, answers all on adding and the rest on removing, naming the member', async () => {
    const { person, params } = await deal();
    await person.client.call('addNote', { params, body: { body: 'First call went well' } });
    const both = await person.client.call('addNote', { params, body: { body: 'Sent the pricing' } });
    expect(both.map((n) => n.body)).toEqual(['Sent the pricing', 'First call went well']);
    expect(both[0]).toMatchObject({ linkId: params.linkId, by: 'Grace Seller', byImage: null });
    const rest = await person.client.call('removeNote', { params: { noteId: both[0].id } });
    expect(rest.map((n) => n.body)).toEqual(['First call went well']);
    expect((await person.client.call('board'))[0].notes).toBe(1);
  });
  it('lists at most the newest 20 of who else came on a card, and counts them all', async () => {
    const { person, link } = await deal();
    // Thirty sessions claiming the link under other names, a minute apart (written directly:
    // thirty room entries prove nothing more).
    await platform.deps.sql`
      insert into link_claims (link_id, session_id, name, first_seen_at, last_seen_at)
      select ${link.id}, gen_random_uuid(), 'Other ' || i, now() - (30 - i) * interval '1 minute', now() - (30 - i) * interval '1 minute'
      from generate_series(1, 30) i`;
    const [card] = await person.client.call('board');
    expect(card.forwarded).toHaveLength(20);
    expect(card.forwarded.map((f) => f.name)).toEqual(Array.from({ length: 20 }, (_, i) => `Other ${i + 11}`));
    expect(card.forwardedCount).toBe(30);
    expect(card.claims).toBe(30);
  });
});

describe('refusals', () => {
  it('answers 402 pipeline on Free, also for links made on a paid plan', async () => {
    const { person, project, params } = await deal();
    expect((await platform.fetch('/api/pipeline', { token: person.token })).status).toBe(200);
    const [note] = await person.client.call('addNote', { params, body: { body: 'kept' } });
    await platform.deps.sql`update workspaces set plan = 'free' where id = (select workspace_id from projects where id = ${project.id})`;
    // The pipeline list (GET /api/pipeline) is a pipeline operation too: Free has no pipeline.
    expect(await platform.fetch('/api/pipeline', { token: person.token })).toMatchObject({
      status: 402,
      body: { error: 'Your plan has no pipeline.', reason: 'limit', limit: 'pipeline', plan: 'free', upgrade: 'solo' },
    });
    const calls = [
      () => person.client.call('pipeline'),
      () => person.client.call('board'),
      () => person.client.call('projectBoard', { params: { projectId: project.id } }),
      () => person.client.call('setStage', { params, body: { stage: 'yes' } }),
      () => person.client.call('setOutcome', { params, body: { outcome: 'won' } }),
      () => person.client.call('followUp', { params, body: { on: null, note: null } }),
      () => person.client.call('listNotes', { params }),
      () => person.client.call('addNote', { params, body: { body: 'x' } }),
      () => person.client.call('removeNote', { params: { noteId: note.id } }),
    ];
    for (const call of calls) {
      const { status, body } = await refusal(call());
      expect(status).toBe(402);
      expect(body).toMatchObject({ reason: 'limit', limit: 'pipeline', plan: 'free' });
    }
  });

  it('answers 404 for a link, note or project of another workspace, or none', async () => {
    const { person, project, params } = await deal();
    const [note] = await person.client.call('addNote', { params, body: { body: 'mine' } });
    const stranger = await platform.person({ plan: 'solo' });
    const onFree = await platform.person({ plan: 'free' });
    for (const noteId of [note.id, randomUUID(), 'nope'])
      expect((await refusal(onFree.client.call('removeNote', { params: { noteId } }))).status).toBe(404);
    for (const linkId of [params.linkId, randomUUID(), 'nope']) {
      expect((await refusal(stranger.client.call('setStage', { params: { linkId }, body: { stage: 'yes' } }))).status).toBe(404);
      expect((await refusal(stranger.client.call('listNotes', { params: { linkId } }))).status).toBe(404);
      expect((await refusal(stranger.client.call('addNote', { params: { linkId }, body: { body: 'x' } }))).status).toBe(404);
    }
    for (const noteId of [note.id, randomUUID(), 'nope'])
      expect((await refusal(stranger.client.call('removeNote', { params: { noteId } }))).status).toBe(404);
    expect((await refusal(stranger.client.call('projectBoard', { params: { projectId: project.id } }))).status).toBe(404);
    expect(await stranger.client.call('board')).toEqual([]);
    expect((await person.client.call('listNotes', { params })).length).toBe(1);
    expect((await person.client.call('board'))[0]).toMatchObject({ placed: false });
  });
});
