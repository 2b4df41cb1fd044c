import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { refusal } from '../../test/support/refusal.js';
import { deployStaticRoom, hit, shellData, type Jar } from '../../test/support/room.js';
import { planOf, publicViewerHours } from '../core/rules/plans.js';

// What anyone can cause at a public room /p/<slug> (issue 28, M2): a fetch that never runs the
// shell holds no seat, and public visits draw on their own allowance of hours, so strangers can
// neither fill a room for real visitors nor shut the workspace's private links.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

/** A Solo workspace's live static room, listed, with a private link too. */
async function listedRoom() {
  const owner = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, owner);
  const params = { projectId: project.id };
  await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' } });
  await owner.client.call('listProject', { params });
  return { owner, project, params, publicPath: `/p/${project.slug}` };
}

/** A viewer at `path` whose shell runs: the page, then the shell's arrival. */
async function visitor(path: string) {
  const jar: Jar = new Map();
  const page = await hit(platform, path, { jar });
  if (!page.text.includes('room-data')) return { page, arrived: null };
  const arrived = await hit(platform, `/room/${shellData(page.text).sessionId}/arrive`, { method: 'POST', jar, json: {} });
  return { page, arrived };
}

/** `hours` of visits this month, just ended, each at most ten minutes: public ones, or through `linkId`. */
async function visitHours(project: { id: string }, hours: number, linkId: string | null = null) {
  await platform.deps.sql`
    with w as (select greatest(date_trunc('month', now() at time zone 'utc') at time zone 'utc', now() - interval '10 minutes') as s)
    insert into visits (workspace_id, project_id, link_id, started_at, last_seen_at, ended_at)
    select p.workspace_id, p.id, ${linkId}::uuid, w.s, now(), now()
    from w, projects p, generate_series(1, ceil(${hours} * 3600 / greatest(extract(epoch from now() - w.s), 1))::int)
    where p.id = ${project.id}`;
}

describe('the public room, open to anyone', () => {
  it('is not made Demo full by bare fetches: as many as it has seats, and a real visitor still gets in', async () => {
    const { project, publicPath } = await listedRoom();
    const seats = planOf('solo').concurrentViewers;
    for (let i = 0; i < seats; i++) expect((await hit(platform, publicPath, { jar: new Map() })).status).toBe(200);
    const real = await visitor(publicPath);
    expect(real.page.text).toContain('room-data');
    expect(real.arrived?.json).toEqual({ ok: true });
    // Real visitors fill it: once the seats are taken by shells that arrived, the next meets Demo full.
    for (let i = 1; i < seats; i++) expect((await visitor(publicPath)).arrived?.json).toEqual({ ok: true });
    expect((await visitor(publicPath)).page.text).toContain('Demo full');
    expect(await platform.deps.sql`select 1 from visits where project_id = ${project.id}`).toHaveLength(seats);
  });

  it('uses its own allowance of hours: used up, the public room takes no visits while private links stay open', async () => {
    const { owner, project, params, publicPath } = await listedRoom();
    const { url } = await owner.client.call('createLink', { params, body: { viewerName: 'Grace' } });
    expect(publicViewerHours(planOf('solo'))).toBe(10);
    await visitHours(project, 10);
    expect((await visitor(publicPath)).page.text).toContain('Not taking visits');
    // Strangers have spent far more than the plan's month (50 h on Solo): private links are untouched.
    await visitHours(project, 45);
    expect((await visitor(publicPath)).page.text).toContain('Not taking visits');
    const made = await owner.client.call('createLink', { params, body: { viewerName: 'Ada' } });
    expect(made.url).toBeTruthy();
    for (const address of [url, made.url]) {
      const viaLink = await visitor(new URL(address).pathname);
      expect(viaLink.page.text).toContain('room-data');
      expect(viaLink.arrived?.json).toEqual({ ok: true });
    }
  });

  it('leaves the private links their whole month: link visits alone close them, with 402 viewerHours', async () => {
    const { owner, params, project } = await listedRoom();
    const { link } = await owner.client.call('createLink', { params, body: { viewerName: 'Grace' } });
    await visitHours(project, 51, link.id);
    const refused = await refusal(owner.client.call('createLink', { params, body: { viewerName: 'Ada' } }));
    expect(refused).toMatchObject({ status: 402, body: { reason: 'limit', limit: 'viewerHours', plan: 'solo', upgrade: 'pro' } });
  });
});
