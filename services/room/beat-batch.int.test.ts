import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../core/infra/ids.js';
import { recordBeats, type QueuedBeat } from '../data/beat-batch.sql.js';
import { beatBatcher } from './viewer/beat-batcher.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../test/support/room.js';

// The shell's beacons written in batches (issue 15): many viewers' beats in one transaction,
// each credited by the same rule as alone, each checked against its session's token; what the
// batch cannot decide (a second beat of one session, a wrong token, a preview, a visit to start)
// goes the one-by-one way, with the same answers as before.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

/** A live room and `n` viewers in it, each through their own link, with their visits open. */
async function roomWithViewers(n: number) {
  const person = await platform.person({ plan: 'enterprise' }); // room for 200 viewers at once
  const { project } = await deployStaticRoom(platform, person);
  const viewers = [];
  for (let i = 0; i < n; i++) {
    const { url, link } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: `Viewer ${i}` },
    });
    viewers.push({ ...(await enterRoom(platform, url, { name: `Viewer ${i}` })), linkId: link.id });
  }
  // As if each had been in the room for a while: the allowance is the time since the last beat.
  await platform.deps
    .sql`update visits set started_at = now() - interval '20 seconds', last_seen_at = now() - interval '10 seconds' where project_id = ${project.id}`;
  return { person, project, viewers };
}

const tokenOf = (jar: Map<string, string>, sessionId: string) =>
  [...jar.values()].find((v) => v.startsWith(`${sessionId}.`))!.slice(sessionId.length + 1);

describe('beats in batches', () => {
  it('credits 40 viewers beating at once, each to their own visit, with their events', async () => {
    const { person, project, viewers } = await roomWithViewers(40);
    const answers = await Promise.all(
      viewers.map((v, i) =>
        hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json: { time: { web: 3, admin: i % 2 }, hidden: i === 0 } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(viewers.map(() => 200));
    const visits = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visits).toHaveLength(40);
    for (const v of visits) expect(v.time.web).toBe(3);
    expect(visits.filter((v) => v.time.admin === 1)).toHaveLength(20);
    const [events] = await platform.deps.sql<{ time: number; hidden: number; sessions: number }[]>`
      select count(*) filter (where kind = 'time')::int as time, count(*) filter (where kind = 'hidden')::int as hidden,
             count(distinct session_id)::int as sessions
      from room_events where project_id = ${project.id} and kind in ('time', 'hidden')`;
    expect(events).toEqual({ time: 60, hidden: 1, sessions: 40 });
  });

  it('writes what it can decide and leaves the rest alone: a second beat, a wrong token, a preview, a quiet visit', async () => {
    const { project, viewers } = await roomWithViewers(4);
    const [a, b, c, d] = viewers.map((v) => ({ sessionId: v.data.sessionId as string, token: tokenOf(v.jar, v.data.sessionId) }));
    await platform.deps.sql`update room_sessions set preview = true where id = ${c.sessionId}`;
    await platform.deps
      .sql`update visits set started_at = now() - interval '20 minutes', last_seen_at = now() - interval '10 minutes' where id = (select visit_id from room_sessions where id = ${d.sessionId})`;
    const beat = (s: { sessionId: string; token: string }, web = 4): QueuedBeat => ({
      sessionId: s.sessionId,
      tokenHash: hashSecret(s.token),
      time: { web },
      shown: false,
      hidden: false,
      device: 'desktop',
    });
    const outcomes = await recordBeats(platform.deps.sql, [
      beat(a),
      beat(a, 2),
      { ...beat(b), tokenHash: hashSecret('wrong') },
      beat(c),
      beat(d),
    ]);
    expect(outcomes).toEqual(['recorded', 'alone', 'alone', 'alone', 'alone']);
    const rows = await platform.deps.sql<{ sessionId: string; time: Record<string, number> }[]>`
      select s.id as session_id, v.time from room_sessions s join visits v on v.id = s.visit_id where s.project_id = ${project.id}`;
    const timeOf = (id: string) => rows.find((r) => r.sessionId === id)!.time;
    expect(timeOf(a.sessionId)).toEqual({ web: 4 });
    for (const s of [b, c, d]) expect(timeOf(s.sessionId)).toEqual({});
  });

  it('a viewer back after a quiet spell is answered 200 and starts a new visit; the quiet one ends at its last beat', async () => {
    const { person, project, viewers } = await roomWithViewers(1);
    const [v] = viewers;
    await platform.deps
      .sql`update visits set started_at = now() - interval '20 minutes', last_seen_at = now() - interval '10 minutes' where project_id = ${project.id}`;
    const answer = await hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json: { time: { web: 4 } } });
    expect(answer.status).toBe(200);
    const visits = await platform.deps.sql<{ endedAt: Date | null; lastSeenAt: Date; startedAt: Date }[]>`
      select started_at, last_seen_at, ended_at from visits where project_id = ${project.id} order by started_at`;
    expect(visits).toHaveLength(2);
    expect(visits[0].endedAt).toEqual(visits[0].lastSeenAt);
    expect(visits[1].endedAt).toBeNull();
    expect(await person.client.call('listVisits', { params: { projectId: project.id } })).toHaveLength(2);
  });

  it('a beat racing the leave is credited to the visit just left and opens none; a beat back in view (shown) starts the next', async () => {
    const { person, project, viewers } = await roomWithViewers(1);
    const [v] = viewers;
    const post = (path: string, json: object) => hit(platform, `${v.base}/${path}`, { method: 'POST', jar: v.jar, json });
    expect((await post('leave', { time: { web: 2 } })).status).toBe(200);
    // The hidden beacon and a flush sent before pagehide, arriving after the leave.
    expect((await post('beat', { time: { web: 1 }, hidden: true })).status).toBe(200);
    expect((await post('beat', { time: { web: 1 } })).status).toBe(200);
    const left = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(left).toHaveLength(1);
    expect(left[0].time.web).toBe(4);
    expect(left[0].endedAt).not.toBeNull();
    // Their seconds are events of that visit; the hidden beacon of a page already left says nothing more.
    const events = await platform.deps.sql<{ kind: string; seconds: number }[]>`
      select kind, seconds from room_events where project_id = ${project.id} and kind in ('time', 'hidden', 'leave') order by id`;
    expect(events.filter((e) => e.kind === 'time').reduce((sum, e) => sum + e.seconds, 0)).toBe(4);
    expect(events.filter((e) => e.kind === 'hidden')).toEqual([]);

    // Back from the page cache: the shown flush starts a new visit, though it came too soon to carry a second.
    expect((await post('beat', { time: {}, shown: true })).status).toBe(200);
    const visits = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visits).toHaveLength(2);
    expect(visits.filter((x) => x.endedAt === null)).toHaveLength(1);
  });

  it("a tampered shell's beats after the leave are each allowed the time since the one before, not since the leave", async () => {
    const { person, project, viewers } = await roomWithViewers(1);
    const [v] = viewers;
    const post = (json: object) => hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json });
    expect((await hit(platform, `${v.base}/leave`, { method: 'POST', jar: v.jar, json: { time: { web: 2 } } })).status).toBe(200);
    // As if the leave were 10 s ago: the first straggler may have those 10 s (rounded up) and the 5 s of slack.
    await platform.deps.sql`update visits set last_seen_at = last_seen_at - interval '10 seconds' where project_id = ${project.id}`;
    expect((await post({ time: { web: 100 } })).status).toBe(200);
    expect((await post({ time: { web: 100 } })).status).toBe(200);
    const [visit] = await person.client.call('listVisits', { params: { projectId: project.id } });
    // 2 + 16, then the second beat's few milliseconds since the first (rounded up) and its 5 s of slack.
    expect(visit.time.web).toBeGreaterThanOrEqual(2 + 16 + 6);
    expect(visit.time.web).toBeLessThanOrEqual(2 + 16 + 8);
  });

  it("moves a link to engaged when a straggler's seconds take the visit it left past a minute", async () => {
    const { person, project, viewers } = await roomWithViewers(1);
    const [v] = viewers;
    const post = (path: string, json: object) => hit(platform, `${v.base}/${path}`, { method: 'POST', jar: v.jar, json });
    await platform.deps.sql`update visits set time = '{"web": 55}'::jsonb where project_id = ${project.id}`;
    expect((await post('leave', { time: { web: 2 } })).status).toBe(200);
    const stage = async () => (await person.client.call('listLinks', { params: { projectId: project.id } }))[0].stage;
    expect(await stage()).not.toBe('engaged');
    // The hidden beacon, after the leave: 57 + 5 seconds, past the minute, in the visit just left.
    expect((await post('beat', { time: { web: 5 }, hidden: true })).status).toBe(200);
    const visits = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visits).toHaveLength(1);
    expect(visits[0].time.web).toBe(62);
    expect(await stage()).toBe('engaged');
  });

  it('never credits more than the time since the last beat, and moves a link to engaged when a visit crosses a minute', async () => {
    const { person, project, viewers } = await roomWithViewers(1);
    const [v] = viewers;
    await platform.deps.sql`update visits set time = '{"web": 55}'::jsonb where project_id = ${project.id}`;
    const answer = await hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json: { time: { web: 9000 } } });
    expect(answer.status).toBe(200);
    const [visit] = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visit.time.web).toBeGreaterThanOrEqual(55 + 10);
    expect(visit.time.web).toBeLessThanOrEqual(55 + 10 + 6);
    const [link] = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(link.stage).toBe('engaged');
  });

  it('answers as before from outside: 403 without the room’s origin, 404 for a wrong token, 400 for a bad body', async () => {
    const { viewers } = await roomWithViewers(1);
    const [v] = viewers;
    expect((await hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json: { time: { web: 1 } }, noOrigin: true })).status).toBe(
      403,
    );
    const forged = new Map(
      [...v.jar].map(([k, val]) => [k, val.startsWith(v.data.sessionId) ? `${v.data.sessionId}.pp_room_forged` : val]),
    );
    expect((await hit(platform, `${v.base}/beat`, { method: 'POST', jar: forged, json: { time: { web: 1 } } })).status).toBe(404);
    expect((await hit(platform, `${v.base}/beat`, { method: 'POST', jar: forged, json: { time: 'x' } })).status).toBe(404);
    expect((await hit(platform, `${v.base}/beat`, { method: 'POST', jar: v.jar, json: { time: 'x' } })).status).toBe(400);
    expect((await hit(platform, `/room/not-a-session/beat`, { method: 'POST', jar: v.jar, json: { time: { web: 1 } } })).status).toBe(404);
  });

  it("a beacon keyed with NUL or a lone surrogate fails only itself: another tenant's viewer beating with it is credited", async () => {
    const bad = await roomWithViewers(1);
    const good = await roomWithViewers(1);
    const [b] = bad.viewers;
    const [g] = good.viewers;
    // Raw bodies, as a script would send them: JSON's own escapes for NUL and an unpaired surrogate.
    const answers = await Promise.all([
      hit(platform, `${b.base}/beat`, {
        method: 'POST',
        jar: b.jar,
        body: '{"time":{"\\u0000":1}}',
        headers: { 'content-type': 'application/json' },
      }),
      hit(platform, `${b.base}/beat`, {
        method: 'POST',
        jar: b.jar,
        body: '{"time":{"\\ud800":1}}',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      }),
      hit(platform, `${g.base}/beat`, { method: 'POST', jar: g.jar, json: { time: { web: 3 } } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 400, 200]);
    expect(answers[0].json).toEqual({ error: 'invalid', issues: [{ path: 'time', message: 'expected seconds by app or page' }] });
    const [visit] = await good.person.client.call('listVisits', { params: { projectId: good.project.id } });
    expect(visit.time).toEqual({ web: 3 });
    const [badVisit] = await bad.person.client.call('listVisits', { params: { projectId: bad.project.id } });
    expect(badVisit.time).toEqual({});
  });

  it('a batch Postgres refuses is written again beat by beat, so only the culprit fails', async () => {
    const bad = await roomWithViewers(2);
    const good = await roomWithViewers(1);
    const queued = (v: { jar: Map<string, string>; data: { sessionId: string } }, time: Record<string, number>): QueuedBeat => ({
      sessionId: v.data.sessionId,
      tokenHash: hashSecret(tokenOf(v.jar, v.data.sessionId)),
      time,
      shown: false,
      hidden: false,
      device: 'desktop',
    });
    // Three beats, one batch (it goes when full), past the route's checks as if they had none.
    const batcher = beatBatcher(platform.deps.sql, { windowMs: 60_000, maxBatch: 3 });
    const outcomes = await Promise.allSettled([
      batcher.add(queued(bad.viewers[0], { '\u0000': 1 })),
      batcher.add(queued(bad.viewers[1], { '\ud800': 1 })),
      batcher.add(queued(good.viewers[0], { web: 4 })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(outcomes[2]).toMatchObject({ value: 'recorded' });
    const [visit] = await good.person.client.call('listVisits', { params: { projectId: good.project.id } });
    expect(visit.time).toEqual({ web: 4 });
  });
});
