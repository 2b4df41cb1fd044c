import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { claimLink } from '../../data/link-claims.sql.js';
import { dayOf, nextDay, rollDay, rolledDays } from '../../data/event-days.sql.js';
import { recordEvents, type CoarseDevice, type RoomEvent } from '../../data/room-events.sql.js';
import { eventDays } from '../../../workers/event-days-rollup/event-days.job.js';
import type { WorkerDeps } from '../../../workers/worker-deps.js';

// projectAnalytics, workspaceAnalytics and journey (spec 4.2; issue 15) against real Postgres:
// events written with the room's own batched insert at fixed instants, the day roll-up job run on
// them, and the replies checked (by the typed client) against the contract and to the unit.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

const plus = (day: string, n: number) => {
  let d = day;
  for (let i = 0; i < n; i++) d = nextDay(d);
  return d;
};
const minus = (day: string) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000));
const at = (day: string, time: string) => new Date(`${day}T${time}Z`);

// Past days of its own for each test, never rolled before: a day once rolled stays marked rolled
// in the shared database, and the room never writes events into a past day (the tests do).
let base = '';
beforeEach(async () => {
  for (;;) {
    base = dayOf(new Date(Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 8000) * 86_400_000));
    if (!(await rolledDays(platform.deps.sql, minus(base), plus(base, 3))).size) return;
  }
});

const storyManifest = {
  kind: 'static',
  name: 'Story room',
  output: 'dist',
  apps: [
    { id: 'web', name: 'Website', path: '/', device: 'laptop' },
    { id: 'admin', name: 'Admin', path: '/admin/', device: 'phone' },
  ],
  story: [
    { id: 'home', title: 'Home', say: 'The home page.', app: 'web' },
    { id: 'more', title: 'More', say: 'More of it.', app: 'web', path: '/' },
  ],
};

async function workspaceOf(projectId: string): Promise<string> {
  const [row] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${projectId}`;
  return row.workspaceId;
}

/** Writes one session's events as the room does: one batched insert. */
async function events(
  p: { workspaceId: string; projectId: string; linkId?: string | null },
  sessionId: string,
  list: RoomEvent[],
  device: CoarseDevice = 'desktop',
) {
  await recordEvents(
    platform.deps.sql,
    { workspaceId: p.workspaceId, projectId: p.projectId, linkId: p.linkId ?? null, sessionId, visitId: null, device },
    list,
  );
}

const zeros = {
  views: 0,
  viewers: 0,
  activeSeconds: 0,
  time: {},
  storyCompletions: 0,
  steps: {},
  scenarios: {},
  answers: {},
  comments: 0,
  bounces: 0,
};
const rollJob = (day: string) =>
  eventDays(platform.deps as unknown as WorkerDeps, { data: { day }, updateProgress: async () => {} } as unknown as Job);

/** A solo workspace's live room with a two-step story, a link, and events over three days around `base`. */
async function busyProject(person?: Person) {
  const owner = person ?? (await platform.person({ plan: 'solo' }));
  const { project } = await deployStaticRoom(platform, owner, { manifest: storyManifest });
  const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  const where = { workspaceId: await workspaceOf(project.id), projectId: project.id, linkId: link.id };
  const [a, b, early, late] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const d0 = base,
    d1 = plus(base, 1);
  await events(where, a, [
    { kind: 'entry', at: at(d0, '09:00:00') },
    { kind: 'time', subject: 'web', seconds: 60, at: at(d0, '09:01:00') },
    { kind: 'time', subject: 'admin', seconds: 30, at: at(d0, '09:02:00') },
    { kind: 'step', subject: 'home', at: at(d0, '09:03:00') },
    { kind: 'step', subject: 'more', at: at(d0, '09:04:00') },
    { kind: 'step', subject: 'more', at: at(d0, '09:04:30') },
    { kind: 'scenario', subject: 'refund', at: at(d0, '09:05:00') },
    { kind: 'answer', subject: 'yes', at: at(d0, '09:06:00') },
    { kind: 'comment', subject: 'web', at: at(d0, '09:07:00') },
    { kind: 'entry', at: at(d0, '10:00:00') },
  ]);
  // The last millisecond of d0 is d0's; the first of d1 is d1's.
  await events(
    where,
    b,
    [
      { kind: 'entry', at: at(d0, '23:59:59.999') },
      { kind: 'time', subject: 'web', seconds: 10, at: at(d0, '23:59:59.999') },
    ],
    'phone',
  );
  await events(where, b, [{ kind: 'entry', at: at(d1, '00:00:00.000') }], 'phone');
  // Just outside the range base..base+2.
  await events(where, early, [{ kind: 'entry', at: at(minus(d0), '23:59:59.999') }]);
  await events(where, late, [{ kind: 'entry', at: at(plus(base, 3), '00:00:00') }]);
  await platform.deps.sql`
    insert into room_bounces (workspace_id, project_id, browser_hash, hour)
    values (${where.workspaceId}, ${project.id}, ${Buffer.from(randomUUID())}, ${at(d1, '05:00:00')})`;
  return { owner, project, link, where };
}

const expectedDays = () => [
  {
    day: base,
    views: 3,
    viewers: 2,
    activeSeconds: 100,
    time: { web: 70, admin: 30 },
    storyCompletions: 1,
    steps: { home: 1, more: 1 },
    scenarios: { refund: 1 },
    answers: { yes: 1 },
    comments: 1,
    bounces: 0,
  },
  { day: plus(base, 1), ...zeros, views: 1, viewers: 1, bounces: 1 },
  { day: plus(base, 2), ...zeros },
];
const expectedTotals = {
  views: 4,
  viewers: 3,
  activeSeconds: 100,
  time: { web: 70, admin: 30 },
  storyCompletions: 1,
  steps: { home: 1, more: 1 },
  scenarios: { refund: 1 },
  answers: { yes: 1 },
  comments: 1,
  bounces: 1,
};
/** The story room's names (issue 29, item 7): its apps and steps; the static room has no scenarios. */
const storyNames = { time: { web: 'Website', admin: 'Admin' }, steps: { home: 'Home', more: 'More' }, scenarios: {} };

type Tallied = { time: Record<string, number>; steps: Record<string, number>; scenarios: Record<string, number> };
/** Figures as workspaceAnalytics keys them: `<projectId>:<id>`, since two rooms may share an app id. */
function keyed<T extends Tallied>(projectId: string, f: T): T {
  const re = (t: Record<string, number>) => Object.fromEntries(Object.entries(t).map(([k, n]) => [`${projectId}:${k}`, n]));
  return { ...f, time: re(f.time), steps: re(f.steps), scenarios: re(f.scenarios) };
}

describe('projectAnalytics', () => {
  it('sums each UTC day (both ends included, an empty day as zeros) the same from raw events, from the roll-ups, and after a re-run', async () => {
    const { owner, project, where } = await busyProject();
    const params = { projectId: project.id, from: base, to: plus(base, 2) };
    const want = { from: base, to: plus(base, 2), full: true, days: expectedDays(), totals: expectedTotals, names: storyNames };

    // Not rolled yet: the answer comes from the raw events.
    expect(await owner.client.call('projectAnalytics', { params })).toEqual(want);

    for (const d of [minus(base), base, plus(base, 1), plus(base, 2), plus(base, 3)]) await rollJob(d);
    const stored = await platform.deps.sql<
      { day: string; views: number; viewers: number; activeSeconds: string; time: unknown; steps: unknown; bounces: number }[]
    >`
      select to_char(day, 'YYYY-MM-DD') as day, views, viewers, active_seconds, time, steps, bounces from event_days
      where project_id = ${project.id} order by day`;
    expect(stored).toEqual([
      { day: minus(base), views: 1, viewers: 1, activeSeconds: '0', time: {}, steps: {}, bounces: 0 },
      { day: base, views: 3, viewers: 2, activeSeconds: '100', time: { web: 70, admin: 30 }, steps: { home: 1, more: 1 }, bounces: 0 },
      { day: plus(base, 1), views: 1, viewers: 1, activeSeconds: '0', time: {}, steps: {}, bounces: 1 },
      { day: plus(base, 3), views: 1, viewers: 1, activeSeconds: '0', time: {}, steps: {}, bounces: 0 },
    ]);
    expect(await owner.client.call('projectAnalytics', { params })).toEqual(want);

    // Re-running a day gives the same rows.
    expect(await rollDay(platform.deps.sql, base)).toBeGreaterThanOrEqual(1);
    expect(await owner.client.call('projectAnalytics', { params })).toEqual(want);

    // Rolled days answer from the roll-ups: the raw events of base are no longer read.
    await platform.deps
      .sql`delete from room_events where project_id = ${where.projectId} and at >= ${at(base, '00:00:00')} and at < ${at(plus(base, 1), '00:00:00')}`;
    expect(await owner.client.call('projectAnalytics', { params })).toEqual(want);
    // ... and a re-run after that rolls what is there now.
    await rollJob(base);
    const after = await owner.client.call('projectAnalytics', { params });
    expect(after.full && after.days[0]).toEqual({ day: base, ...zeros });
  });

  it("counts today's events from the raw rows, and the roll-up refuses a day that has not ended", async () => {
    const owner = await platform.person({ plan: 'solo' });
    const project = await owner.client.call('createProject', { body: { slug: uniqueSlug('an'), name: 'Today' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id };
    const today = dayOf(new Date());
    await events(where, randomUUID(), [{ kind: 'entry' }, { kind: 'time', subject: 'web', seconds: 12 }]);
    const reply = await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: minus(today), to: today } });
    expect(reply).toMatchObject({ full: true, totals: { views: 1, viewers: 1, activeSeconds: 12, time: { web: 12 } } });
    expect(reply.full && reply.days.map((d) => [d.day, d.views])).toEqual([
      [minus(today), 0],
      [today, 1],
    ]);
    await expect(rollDay(platform.deps.sql, today)).rejects.toThrow(/has not ended/);
    await expect(rollJob(today)).rejects.toThrow(/has not ended/);
  });

  it('counts one viewer for one person on three devices of their link, and two for another name (issue 47, item 4)', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner, { manifest: storyManifest });
    const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id, linkId: link.id };
    const today = dayOf(new Date());
    // Each browser its own session (laptop, phone, tablet), one name, as the room records them.
    for (const name of ['Ada Lovelace', 'ada lovelace', 'Ada Lovelace ', 'Bo Colleague']) {
      const [s] = await platform.deps.sql<{ id: string }[]>`
        insert into room_sessions (workspace_id, project_id, link_id, entry_hash, token_hash, viewer_name, expires_at)
        values (${where.workspaceId}, ${project.id}, ${link.id}, ${Buffer.from('e')}, ${Buffer.from(randomUUID())}, ${name}, now() + interval '1 day')
        returning id`;
      await events(where, s.id, [{ kind: 'entry' }]);
    }
    const reply = await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: today, to: today } });
    expect(reply).toMatchObject({ full: true, totals: { views: 4, viewers: 2 } });
  });

  it('answers total views only on Free', async () => {
    const owner = await platform.person({ plan: 'free' });
    const project = await owner.client.call('createProject', { body: { slug: uniqueSlug('an'), name: 'Free' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id };
    await events(where, randomUUID(), [
      { kind: 'entry', at: at(base, '08:00:00') },
      { kind: 'time', subject: 'web', seconds: 5, at: at(base, '08:00:05') },
    ]);
    await events(where, randomUUID(), [{ kind: 'entry', at: at(plus(base, 1), '08:00:00') }]);
    const want = { from: base, to: plus(base, 1), full: false, totals: { views: 2 } };
    expect(await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: base, to: plus(base, 1) } })).toEqual(want);
    expect(await owner.client.call('workspaceAnalytics', { params: { from: base, to: plus(base, 1) } })).toEqual(want);
  });

  it('refuses a range that is not days, reversed or over 366 days with 422 range; a foreign project is 404', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const project = await owner.client.call('createProject', { body: { slug: uniqueSlug('an'), name: 'Range' } });
    const bad: [string, string][] = [
      ['yesterday', base],
      [base, '2026-02-30'],
      [`${base}T00:00:00Z`, base],
      [plus(base, 1), base],
      [base, plus(base, 366)],
      ['0000-01-01', '0000-01-02'],
    ];
    for (const [from, to] of bad) {
      for (const call of [
        () => owner.client.call('projectAnalytics', { params: { projectId: project.id, from, to } }),
        () => owner.client.call('workspaceAnalytics', { params: { from, to } }),
      ]) {
        const r = await refusal(call());
        expect([from, to, r.status, r.body.reason]).toEqual([from, to, 422, 'range']);
      }
    }
    // 366 days, both ends included, is the most.
    const longest = await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: base, to: plus(base, 365) } });
    expect(longest.full && longest.days.length).toBe(366);
    // The last days a date can name: two days, not a day list that never ends (the day after has five digits).
    for (const call of [
      () => owner.client.call('projectAnalytics', { params: { projectId: project.id, from: '9999-12-30', to: '9999-12-31' } }),
      () => owner.client.call('workspaceAnalytics', { params: { from: '9999-12-30', to: '9999-12-31' } }),
    ]) {
      const last = await call();
      expect(last.full && last.days.map((d) => d.day)).toEqual(['9999-12-30', '9999-12-31']);
    }
    const first = await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: '0001-01-01', to: '0001-01-01' } });
    expect(first.full && first.days.map((d) => d.day)).toEqual(['0001-01-01']);

    const stranger = await platform.person({ plan: 'solo' });
    expect(
      (await refusal(stranger.client.call('projectAnalytics', { params: { projectId: project.id, from: base, to: base } }))).status,
    ).toBe(404);
    expect((await refusal(stranger.client.call('projectAnalytics', { params: { projectId: 'nope', from: base, to: base } }))).status).toBe(
      404,
    );
  });
});

describe('workspaceAnalytics', () => {
  it("sums every project of the workspace, keeps each project's ids apart with their names, and splits the totals by project", async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await busyProject(owner);
    const quiet = await owner.client.call('createProject', { body: { slug: uniqueSlug('an'), name: 'Quiet' } });
    const none = await owner.client.call('createProject', { body: { slug: uniqueSlug('an'), name: 'Nothing' } });
    // Quiet has an app id `web` too (issue 29, item 7: the chart summed the two rooms' `web`).
    await events({ workspaceId: await workspaceOf(quiet.id), projectId: quiet.id }, randomUUID(), [
      { kind: 'entry', at: at(plus(base, 2), '12:00:00') },
      { kind: 'answer', subject: 'question', at: at(plus(base, 2), '12:01:00') },
      { kind: 'time', subject: 'web', seconds: 5, at: at(plus(base, 2), '12:02:00') },
    ]);
    const quietTotals = { ...zeros, views: 1, viewers: 1, activeSeconds: 5, time: { web: 5 }, answers: { question: 1 } };
    const busy = keyed(project.id, expectedTotals);
    const want = {
      from: base,
      to: plus(base, 2),
      full: true,
      days: [keyed(project.id, expectedDays()[0]), expectedDays()[1], keyed(quiet.id, { ...expectedDays()[2], ...quietTotals })],
      totals: {
        ...busy,
        views: 5,
        viewers: 4,
        activeSeconds: 105,
        time: { ...busy.time, [`${quiet.id}:web`]: 5 },
        answers: { yes: 1, question: 1 },
      },
      projects: [
        { projectId: project.id, slug: project.slug, name: project.name, totals: expectedTotals },
        { projectId: quiet.id, slug: quiet.slug, name: 'Quiet', totals: quietTotals },
      ],
      // Each labelled with its project; Quiet has no build, so its `web` has its project's name and its id.
      names: {
        time: {
          [`${project.id}:web`]: `${project.name} · Website`,
          [`${project.id}:admin`]: `${project.name} · Admin`,
          [`${quiet.id}:web`]: 'Quiet · web',
        },
        steps: { [`${project.id}:home`]: `${project.name} · Home`, [`${project.id}:more`]: `${project.name} · More` },
        scenarios: { [`${project.id}:refund`]: `${project.name} · refund` },
      },
    };
    expect(await owner.client.call('workspaceAnalytics', { params: { from: base, to: plus(base, 2) } })).toEqual(want);
    for (const d of [base, plus(base, 1), plus(base, 2)]) await rollJob(d);
    expect(await owner.client.call('workspaceAnalytics', { params: { from: base, to: plus(base, 2) } })).toEqual(want);
    expect(want.projects.map((p) => p.projectId)).not.toContain(none.id);
  });
});

describe('journey', () => {
  it("shows the link's people, each session's timeline and time, time outside the room and the tour", async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner, { manifest: storyManifest });
    const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id, linkId: link.id };
    const [a, b] = [randomUUID(), randomUUID()];
    await claimLink(platform.deps.sql, { linkId: link.id, sessionId: a, name: 'Ada', email: null, browserHash: null, device: 'desktop' });
    await claimLink(platform.deps.sql, {
      linkId: link.id,
      sessionId: b,
      name: 'Bo',
      email: 'bo@example.com',
      browserHash: null,
      device: 'phone',
    });
    const t = (s: number) => new Date(Date.UTC(2026, 10, 20, 9, 0, s));
    await events(where, a, [
      { kind: 'entry', at: t(0) },
      { kind: 'time', subject: 'web', seconds: 40, at: t(40) },
      { kind: 'step', subject: 'home', at: t(41) },
      { kind: 'hidden', at: t(50) },
      { kind: 'shown', at: t(75) },
      { kind: 'time', subject: 'web', seconds: 20, at: t(95) },
      { kind: 'hidden', at: t(100) },
      { kind: 'leave', at: t(110) },
    ]);
    await events(
      where,
      b,
      [
        { kind: 'entry', at: t(200) },
        { kind: 'hidden', at: t(210) },
      ],
      'phone',
    );

    const j = await owner.client.call('journey', { params: { linkId: link.id } });
    expect(j.link).toMatchObject({ id: link.id, viewerName: 'Ada' });
    expect(j.people).toEqual([
      { name: 'Ada', email: null, sessions: 1 },
      { name: 'Bo', email: 'bo@example.com', sessions: 1 },
    ]);
    // Bo's browser went silent long ago without a leave: ended at the last moment heard from.
    expect(j.sessions.map((s) => [s.id, s.name, s.device, s.endedAt, s.endReason])).toEqual([
      [a, 'Ada', 'desktop', t(110).toISOString(), 'left'],
      [b, 'Bo', 'phone', t(210).toISOString(), 'quiet'],
    ]);
    expect(j.sessions[0].startedAt).toBe(t(0).toISOString());
    expect(j.sessions[0].timeline.map((e) => [e.kind, e.subject, e.seconds])).toEqual([
      ['entry', null, 0],
      ['time', 'web', 40],
      ['step', 'home', 0],
      ['hidden', null, 0],
      ['shown', null, 0],
      ['time', 'web', 20],
      ['hidden', null, 0],
      ['leave', null, 0],
    ]);
    expect(j.sessions[0].time).toEqual({ web: 60 });
    // 25 s between the first hidden and shown, 10 s between the second and the leave; b's hidden never closed.
    expect(j.outside).toEqual([
      { sessionId: a, seconds: 35 },
      { sessionId: b, seconds: 0 },
    ]);
    expect(j.tour).toEqual({ steps: 2, taken: 1 });
    expect(j.windowStart).toBeNull();
    expect(j.names).toEqual(storyNames);
  });

  it('makes one line of consecutive time on one app, and ends a session the room has not heard from for 120 s (issue 47, item 8)', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner, { manifest: storyManifest });
    const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id, linkId: link.id };
    const [closed, going, reloaded] = [randomUUID(), randomUUID(), randomUUID()];
    const now = Date.now();
    const ago = (s: number) => new Date(now - s * 1000);
    // A quarter of an hour on one app, a beat every 5 s, then the browser closed without a word
    // 15 minutes ago.
    const beats = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ kind: 'time' as const, subject: 'web', seconds: 5, at: ago(from - 5 * (i + 1)) }));
    await events(where, closed, [{ kind: 'entry', at: ago(1800) }, ...beats(1800, 180)]);
    // Still beating, 10 s ago.
    await events(where, going, [{ kind: 'entry', at: ago(70) }, ...beats(70, 12)]);
    // Left and came back (a reload): going on after the leave.
    await events(where, reloaded, [
      { kind: 'entry', at: ago(100) },
      { kind: 'time', subject: 'web', seconds: 5, at: ago(95) },
      { kind: 'leave', at: ago(94) },
      { kind: 'entry', at: ago(93) },
      { kind: 'time', subject: 'web', seconds: 5, at: ago(88) },
    ]);

    const j = await owner.client.call('journey', { params: { linkId: link.id } });
    const of = (id: string) => j.sessions.find((s) => s.id === id)!;
    expect(of(closed).timeline.map((e) => [e.kind, e.subject, e.seconds])).toEqual([
      ['entry', null, 0],
      ['time', 'web', 900],
    ]);
    // At the first beat of the run; the time per app is the same sum.
    expect(of(closed).timeline[1].at).toBe(ago(1795).toISOString());
    expect(of(closed).time).toEqual({ web: 900 });
    // Ended at its last beat, and says it went quiet.
    expect([of(closed).endReason, of(closed).endedAt]).toEqual(['quiet', ago(900).toISOString()]);
    expect([of(going).endReason, of(going).endedAt]).toEqual([null, null]);
    expect(of(going).timeline.map((e) => [e.kind, e.seconds])).toEqual([
      ['entry', 0],
      ['time', 60],
    ]);
    expect([of(reloaded).endReason, of(reloaded).endedAt]).toEqual([null, null]);
  });

  it('names room pages by their title and apps and steps by their manifest names, in visits, journey and analytics (issue 29, item 7)', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner, { manifest: storyManifest });
    const page = await owner.client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'Pricing', kind: 'markdown', content: '# Pricing' },
    });
    const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const where = { workspaceId: await workspaceOf(project.id), projectId: project.id, linkId: link.id };
    // A visit as the room's beacon leaves it: seconds per app and page id, one id no longer named.
    await platform.deps
      .sql`insert into visits (workspace_id, project_id, link_id, viewer_name, time) values (${where.workspaceId}, ${project.id}, ${link.id}, 'Ada', ${platform.deps.sql.json({ web: 12, [page.id]: 7, gone: 1 })})`;
    const [visit] = await owner.client.call('listVisits', { params: { projectId: project.id } });
    expect(visit.names).toEqual({ web: 'Website', [page.id]: 'Pricing' });
    await events(where, randomUUID(), [
      { kind: 'entry' },
      { kind: 'time', subject: page.id, seconds: 7 },
      { kind: 'step', subject: 'home' },
    ]);
    const j = await owner.client.call('journey', { params: { linkId: link.id } });
    expect(j.names.time[page.id]).toBe('Pricing');
    expect(j.names.steps.home).toBe('Home');
    const today = dayOf(new Date());
    const a = await owner.client.call('projectAnalytics', { params: { projectId: project.id, from: today, to: today } });
    expect(a.full && a.names.time).toEqual({ web: 'Website', admin: 'Admin', [page.id]: 'Pricing' });
  });

  it('is 402 analytics on Free (even for a link made on a paid plan), 404 for a foreign or missing link, and tour null without a story', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner);
    const { link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    expect(await owner.client.call('journey', { params: { linkId: link.id } })).toMatchObject({
      people: [],
      sessions: [],
      outside: [],
      tour: null,
    });

    const stranger = await platform.person({ plan: 'solo' });
    expect((await refusal(stranger.client.call('journey', { params: { linkId: link.id } }))).status).toBe(404);
    expect((await refusal(owner.client.call('journey', { params: { linkId: randomUUID() } }))).status).toBe(404);
    expect((await refusal(owner.client.call('journey', { params: { linkId: 'nope' } }))).status).toBe(404);

    await platform.deps.sql`update workspaces set plan = 'free' where id = ${await workspaceOf(project.id)}`;
    const r = await refusal(owner.client.call('journey', { params: { linkId: link.id } }));
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ limit: 'analytics' });
  });
});
