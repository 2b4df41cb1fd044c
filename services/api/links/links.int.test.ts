import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '@demo-rooms/contract';
import { hashSecret } from '../../core/infra/ids.js';
import { issueToken } from '../../ops/ops.service.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { resolveLinkKey } from '../../data/links.sql.js';
import { viewerHoursThisMonth } from '../../data/visits.sql.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const slug = () => uniqueSlug('l');

async function newProject(plan = 'solo', name?: string) {
  const person = await platform.person({ plan, name });
  const project = await person.client.call('createProject', { body: { slug: slug(), name: 'Demo' } });
  return { ...person, project, workspaceId: await workspaceOf(project.id) };
}

async function workspaceOf(projectId: string) {
  const [row] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${projectId}`;
  return row.workspaceId;
}

/** The key in a link's address. */
const keyOf = (url: string) => new URL(url).pathname.replace(/^\/r\//, '');

/** Links put straight in the table, as many as a test needs to reach a plan's count. */
async function insertLinks(projectId: string, n: number, state: 'open' | 'revoked' | 'expired' = 'open') {
  const ws = await workspaceOf(projectId);
  for (let i = 0; i < n; i++) {
    await platform.deps.sql`
      insert into links (workspace_id, project_id, viewer_name, key_hash, revoked_at, expires_at)
      values (${ws}, ${projectId}, ${`v${i}`}, ${randomBytes(32)},
              ${state === 'revoked' ? platform.deps.sql`now()` : null}, ${state === 'expired' ? platform.deps.sql`now() - interval '1 second'` : null})`;
  }
}

const historyOf = (client: Client, projectId: string) => client.call('projectHistory', { params: { projectId } });

describe('createLink', () => {
  it('answers 201 {link, url} no-store, opens under /r/<key>, keeps only the hash and the sealed key', async () => {
    const { token, client, project } = await newProject();
    const res = await platform.fetch(`/api/projects/${project.id}/links`, {
      method: 'POST',
      token,
      json: { viewerName: 'Ada', viewerEmail: 'ada@example.com', expiresInDays: 7 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { link, url } = res.body;
    expect(link).toEqual({
      id: expect.any(String),
      viewerName: 'Ada',
      viewerEmail: 'ada@example.com',
      viewerCompany: null,
      expiresAt: expect.any(String),
      revokedAt: null,
      stage: 'sent',
      recoverable: true,
      lastOpenedAt: null,
    });
    expect(Math.abs(Date.parse(link.expiresAt) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    expect(url).toMatch(new RegExp(`^${platform.baseUrl}/r/pp_lnk_[A-Za-z0-9_-]{32}$`));

    const key = keyOf(url);
    const [row] = await platform.deps.sql<
      { keyHash: Buffer; keySealed: Buffer }[]
    >`select key_hash, key_sealed from links where id = ${link.id}`;
    expect(row.keyHash.equals(hashSecret(key))).toBe(true);
    expect(row.keySealed.toString('latin1')).not.toContain(key.slice(7));

    const resolved = await resolveLinkKey(platform.deps.sql, key);
    expect(resolved?.link.id).toBe(link.id);
    expect(resolved?.project.id).toBe(project.id);

    const plain = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bo' } });
    expect(plain.link).toMatchObject({ viewerEmail: null, expiresAt: expect.any(String), stage: 'sent' }); // the default 14 days (issue 29)
    expect(keyOf(plain.url)).not.toBe(key);
  });

  it('expires after 14 days unless told, and never only when asked with expiresInDays: null (issue 29)', async () => {
    const { token, project } = await newProject();
    const make = async (json: object) => {
      const res = await platform.fetch(`/api/projects/${project.id}/links`, { method: 'POST', token, json });
      expect(res.status).toBe(201);
      return res.body.link.expiresAt as string | null;
    };
    const daysLeft = (iso: string | null) => (Date.parse(iso!) - Date.now()) / 86_400_000;
    const plain = daysLeft(await make({ viewerName: 'Default' }));
    expect(plain).toBeGreaterThan(13.99);
    expect(plain).toBeLessThanOrEqual(14);
    expect(daysLeft(await make({ viewerName: 'Three', expiresInDays: 3 }))).toBeCloseTo(3, 1);
    expect(await make({ viewerName: 'For ever', expiresInDays: null })).toBeNull();
    const [row] = await platform.deps.sql`select expires_at from links where project_id = ${project.id} and viewer_name = 'For ever'`;
    expect(row.expiresAt).toBeNull();
  });

  it('answers 400 for a viewer name or expiry out of bounds and makes nothing', async () => {
    const { token, client, project } = await newProject();
    for (const json of [
      { viewerName: '' },
      { viewerName: 'x'.repeat(81) },
      { viewerName: 'a', expiresInDays: 0 },
      { viewerName: 'a', expiresInDays: 366 },
      { viewerName: 'a', expiresInDays: 1.5 },
      { viewerName: 'a', viewerEmail: 'nope' },
    ]) {
      expect((await platform.fetch(`/api/projects/${project.id}/links`, { method: 'POST', token, json })).status).toBe(400);
    }
    expect(await client.call('listLinks', { params: { projectId: project.id } })).toEqual([]);
  });

  it('is 402 links on Free, which has no private links', async () => {
    const { client, project } = await newProject('free');
    const r = await refusal(client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } }));
    expect(r).toEqual({
      status: 402,
      body: { error: 'Your plan has no private links.', reason: 'limit', limit: 'links', plan: 'free', upgrade: 'solo' },
    });
  });

  it('is 402 links beyond the open links per project; revoked and expired ones do not count', async () => {
    const { client, project } = await newProject('solo');
    await insertLinks(project.id, 24);
    await insertLinks(project.id, 3, 'revoked');
    await insertLinks(project.id, 3, 'expired');
    const last = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'the 25th' } });
    const r = await refusal(client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'the 26th' } }));
    expect(r).toMatchObject({
      status: 402,
      body: {
        error: 'Your plan allows no more private links for this project.',
        reason: 'limit',
        limit: 'links',
        plan: 'solo',
        upgrade: 'pro',
      },
    });
    await client.call('revokeLink', { params: { linkId: last.link.id } });
    await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'in its place' } });
    // Another project of the same workspace has its own count.
    const other = await client.call('createProject', { body: { slug: slug(), name: 'Other' } });
    await client.call('createLink', { params: { projectId: other.id }, body: { viewerName: 'elsewhere' } });
  });

  it('never passes the count under racing creations', async () => {
    const { client, project } = await newProject('solo');
    await insertLinks(project.id, 22);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => client.call('createLink', { params: { projectId: project.id }, body: { viewerName: `r${i}` } })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await client.call('listLinks', { params: { projectId: project.id } })).toHaveLength(25);
  });

  it("is 402 viewerHours once the month's viewer-hours are used, across the workspace", async () => {
    const { client, project, workspaceId } = await newProject('solo');
    const other = await client.call('createProject', { body: { slug: slug(), name: 'Other' } });
    const { link } = await client.call('createLink', { params: { projectId: other.id }, body: { viewerName: 'Grace' } });
    // Solo allows 50 hours: 51 hours of visits through a link that just ended, in another project,
    // made of visits of up to ten minutes each, none before this UTC month began. (Public-room
    // visits have their own allowance: services/room/public-room-limits.int.test.ts.)
    await platform.deps.sql`
      with w as (select greatest(date_trunc('month', now() at time zone 'utc') at time zone 'utc', now() - interval '10 minutes') as s)
      insert into visits (workspace_id, project_id, link_id, viewer_name, started_at, last_seen_at, ended_at)
      select ${workspaceId}, ${other.id}, ${link.id}, 'v', w.s, now(), now()
      from w, generate_series(1, ceil(51 * 3600 / greatest(extract(epoch from now() - w.s), 1))::int)`;
    const r = await refusal(client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } }));
    expect(r).toMatchObject({ status: 402, body: { reason: 'limit', limit: 'viewerHours', plan: 'solo', upgrade: 'pro' } });
    await platform.deps.sql`update workspaces set plan = 'pro' where id = ${workspaceId}`;
    await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  });

  it('is 423 while the platform pauses the project (taken down, suspended, over the plan); an owner pause does not stop it', async () => {
    const { client, project, workspaceId } = await newProject('solo');
    const create = () => client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const sql = platform.deps.sql;
    const causes: [() => Promise<unknown>, () => Promise<unknown>][] = [
      [
        () => sql`update projects set taken_down_at = now() where id = ${project.id}`,
        () => sql`update projects set taken_down_at = null where id = ${project.id}`,
      ],
      [
        () => sql`update workspaces set suspended_at = now() where id = ${workspaceId}`,
        () => sql`update workspaces set suspended_at = null where id = ${workspaceId}`,
      ],
      [
        () => sql`update projects set over_limit_at = now() where id = ${project.id}`,
        () => sql`update projects set over_limit_at = null where id = ${project.id}`,
      ],
    ];
    for (const [pause, lift] of causes) {
      await pause();
      expect(await refusal(create())).toMatchObject({ status: 423, body: { reason: 'paused' } });
      await lift();
    }
    expect(await client.call('listLinks', { params: { projectId: project.id } })).toEqual([]);
    await client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'back soon' } });
    await create();
  });
});

describe("the viewer's company (personalised copies)", () => {
  it('is kept on create, changed and cleared by updateLink; 1–80 characters, control characters dropped', async () => {
    const { client, project } = await newProject();
    const { link } = await client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada', viewerCompany: ' Analytical\u0007 Engines ' },
    });
    expect(link.viewerCompany).toBe('Analytical Engines');
    const changed = await client.call('updateLink', { params: { linkId: link.id }, body: { viewerCompany: 'Société Générale' } });
    expect(changed.viewerCompany).toBe('Société Générale');
    // A body that names nothing leaves it as it is.
    expect((await client.call('updateLink', { params: { linkId: link.id }, body: {} })).viewerCompany).toBe('Société Générale');
    expect((await client.call('updateLink', { params: { linkId: link.id }, body: { viewerCompany: null } })).viewerCompany).toBeNull();
  });

  it('refuses a company too long or empty with 400, nothing made or changed', async () => {
    const { token, client, project } = await newProject();
    for (const viewerCompany of ['x'.repeat(81), '', '   ', 7]) {
      const res = await platform.fetch(`/api/projects/${project.id}/links`, {
        method: 'POST',
        token,
        json: { viewerName: 'Ada', viewerCompany },
      });
      expect(res.status, String(viewerCompany)).toBe(400);
    }
    expect(await client.call('listLinks', { params: { projectId: project.id } })).toEqual([]);

    const { link } = await client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada', viewerCompany: 'Kept' },
    });
    const res = await platform.fetch(`/api/links/${link.id}`, { method: 'POST', token, json: { viewerCompany: 'y'.repeat(81) } });
    expect(res.status).toBe(400);
    expect((await client.call('listLinks', { params: { projectId: project.id } }))[0].viewerCompany).toBe('Kept');
  });

  it("is another workspace's link: 404, nothing changed", async () => {
    const a = await newProject();
    const b = await newProject();
    const { link } = await a.client.call('createLink', {
      params: { projectId: a.project.id },
      body: { viewerName: 'Ada', viewerCompany: 'Mine' },
    });
    expect((await refusal(b.client.call('updateLink', { params: { linkId: link.id }, body: { viewerCompany: 'Theirs' } }))).status).toBe(
      404,
    );
    expect((await a.client.call('listLinks', { params: { projectId: a.project.id } }))[0].viewerCompany).toBe('Mine');
  });
});

describe('viewer-hours', () => {
  it('counts the part of each visit inside the UTC month up to now, open ones to when last seen, never previews or other workspaces', async () => {
    const a = await newProject('solo');
    const b = await newProject('solo');
    const at = new Date('2031-03-15T12:00:00.000Z');
    const visit = (ws: string, projectId: string, start: string, seen: string, end: string | null, preview = false) => platform.deps.sql`
      insert into visits (workspace_id, project_id, started_at, last_seen_at, ended_at, preview)
      values (${ws}, ${projectId}, ${start}, ${seen}, ${end}, ${preview})`;
    await visit(a.workspaceId, a.project.id, '2031-02-28T23:00:00Z', '2031-03-01T02:00:00Z', '2031-03-01T02:00:00Z'); // 2 h inside March
    await visit(a.workspaceId, a.project.id, '2031-03-10T10:00:00Z', '2031-03-10T10:30:00Z', null); // open, last seen after 0.5 h
    await visit(a.workspaceId, a.project.id, '2031-03-15T11:00:00Z', '2031-03-15T14:00:00Z', '2031-03-15T14:00:00Z'); // 1 h before `at`
    await visit(a.workspaceId, a.project.id, '2031-02-01T00:00:00Z', '2031-02-02T00:00:00Z', '2031-02-02T00:00:00Z'); // last month
    await visit(a.workspaceId, a.project.id, '2031-03-02T00:00:00Z', '2031-03-02T05:00:00Z', '2031-03-02T05:00:00Z', true); // a preview
    await visit(b.workspaceId, b.project.id, '2031-03-02T00:00:00Z', '2031-03-02T05:00:00Z', '2031-03-02T05:00:00Z'); // another workspace
    expect(await viewerHoursThisMonth(platform.deps.sql, a.workspaceId, at)).toBeCloseTo(3.5, 6);
    expect(await viewerHoursThisMonth(platform.deps.sql, b.workspaceId, at)).toBeCloseTo(5, 6);
    expect(await viewerHoursThisMonth(platform.deps.sql, a.workspaceId, new Date('2031-04-01T00:00:00Z'))).toBeCloseTo(0, 6);
  });
});

describe('listLinks', () => {
  it('lists newest first and never carries an address, nor does any other list', async () => {
    const { client, project } = await newProject();
    const a = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'A' } });
    const b = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'B' } });
    const revealed = await client.call('revealLink', { params: { linkId: a.link.id } });
    const reissued = await client.call('reissueLink', { params: { linkId: b.link.id } });
    const list = await client.call('listLinks', { params: { projectId: project.id } });
    expect(list.map((l) => l.id)).toEqual([b.link.id, a.link.id]);
    expect(list[0]).toEqual({ ...b.link });
    const replies = JSON.stringify([list, await historyOf(client, project.id), await client.call('listProjects')]);
    for (const url of [a.url, b.url, revealed.url, reissued.url]) {
      expect(replies).not.toContain(keyOf(url));
    }
    expect(replies).not.toContain('/r/');
    expect(replies).not.toContain('pp_lnk');
  });

  it('is open to a read-only connection, which sees no address either', async () => {
    const { email, client, project } = await newProject();
    await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'A' } });
    const ro = createClient({ baseUrl: platform.baseUrl, token: (await issueToken(platform.deps.sql, email, { readOnly: true })).token });
    expect(await ro.call('listLinks', { params: { projectId: project.id } })).toHaveLength(1);
  });
});

describe('revokeLink', () => {
  it('stops the link at once and for good; a second revoke changes nothing', async () => {
    const { client, project } = await newProject();
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const revoked = await client.call('revokeLink', { params: { linkId: link.id } });
    expect(revoked).toEqual({ ...link, revokedAt: expect.any(String), recoverable: false });
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
    expect(await client.call('revokeLink', { params: { linkId: link.id } })).toEqual(revoked);
    for (const op of ['revealLink', 'reissueLink'] as const) {
      expect(await refusal(client.call(op, { params: { linkId: link.id } }))).toMatchObject({
        status: 422,
        body: { error: 'refused: revoked', reason: 'revoked' },
      });
    }
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
    expect(await historyOf(client, project.id)).toEqual([]);
  });
});

describe('revealLink', () => {
  it('shows the same address again, no-store, recorded as link.copy with who and for whom', async () => {
    const { token, client, project } = await newProject('solo', 'Grace Hopper');
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const res = await platform.fetch(`/api/links/${link.id}/reveal`, { method: 'POST', token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ link, url });
    expect(await historyOf(client, project.id)).toEqual([
      { id: expect.any(String), kind: 'link.copy', by: 'Grace Hopper', message: null, viewer: 'Ada', until: null, at: expect.any(String) },
    ]);
  });

  it('is 422 expired for an expired link, which no longer opens', async () => {
    const { client, project } = await newProject();
    const { link, url } = await client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada', expiresInDays: 1 },
    });
    await platform.deps.sql`update links set expires_at = now() - interval '1 second' where id = ${link.id}`;
    for (const op of ['revealLink', 'reissueLink'] as const) {
      expect(await refusal(client.call(op, { params: { linkId: link.id } }))).toMatchObject({
        status: 422,
        body: { error: 'refused: expired', reason: 'expired' },
      });
    }
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
  });

  it('is 422 unrecoverable for a link that kept only a hash; reissue gives it a new, recoverable address', async () => {
    const { client, project } = await newProject();
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    await platform.deps.sql`update links set key_sealed = null where id = ${link.id}`;
    expect((await client.call('listLinks', { params: { projectId: project.id } }))[0].recoverable).toBe(false);
    expect(await refusal(client.call('revealLink', { params: { linkId: link.id } }))).toMatchObject({
      status: 422,
      body: { error: 'refused: unrecoverable', reason: 'unrecoverable' },
    });
    // The old address still opens until reissued: only showing it again is impossible.
    expect((await resolveLinkKey(platform.deps.sql, keyOf(url)))?.link.id).toBe(link.id);
    const reissued = await client.call('reissueLink', { params: { linkId: link.id } });
    expect(reissued.link.recoverable).toBe(true);
    expect((await client.call('revealLink', { params: { linkId: link.id } })).url).toBe(reissued.url);
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
  });

  it('is 422 unrecoverable when the sealed key was made under another secret or altered', async () => {
    const { client, project } = await newProject();
    const { link } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    await platform.deps.sql`update links set key_sealed = set_byte(key_sealed, 20, get_byte(key_sealed, 20) # 1) where id = ${link.id}`;
    expect(await refusal(client.call('revealLink', { params: { linkId: link.id } }))).toMatchObject({
      status: 422,
      body: { reason: 'unrecoverable' },
    });
    expect(await historyOf(client, project.id)).toEqual([]);
  });
});

describe('reissueLink', () => {
  it('gives a new address, stops the old one at once, keeps the record, and is recorded as link.reissue', async () => {
    const { token, client, project } = await newProject('solo', 'Grace Hopper');
    const { link, url } = await client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada', viewerEmail: 'ada@example.com', expiresInDays: 30 },
    });
    const res = await platform.fetch(`/api/links/${link.id}/reissue`, { method: 'POST', token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.link).toEqual(link);
    expect(res.body.url).not.toBe(url);
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
    expect((await resolveLinkKey(platform.deps.sql, keyOf(res.body.url)))?.link.id).toBe(link.id);
    expect((await client.call('revealLink', { params: { linkId: link.id } })).url).toBe(res.body.url);
    expect((await historyOf(client, project.id)).map((h) => [h.kind, h.by, h.viewer])).toEqual([
      ['link.copy', 'Grace Hopper', 'Ada'],
      ['link.reissue', 'Grace Hopper', 'Ada'],
    ]);
  });

  it('keeps working while the platform pauses the project: it makes no new link', async () => {
    const { client, project } = await newProject();
    const { link } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    await platform.deps.sql`update projects set taken_down_at = now() where id = ${project.id}`;
    await client.call('reissueLink', { params: { linkId: link.id } });
  });

  it('is 402 links once the workspace is on a plan without private links, and the address stays', async () => {
    const { client, project, workspaceId } = await newProject('solo');
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    await platform.deps.sql`update workspaces set plan = 'free' where id = ${workspaceId}`;
    expect(await refusal(client.call('reissueLink', { params: { linkId: link.id } }))).toMatchObject({
      status: 402,
      body: { reason: 'limit', limit: 'links', plan: 'free', upgrade: 'solo' },
    });
    expect((await resolveLinkKey(platform.deps.sql, keyOf(url)))?.link.id).toBe(link.id);
  });
});

describe('a read-only connection', () => {
  it('is 403 role cannot for createLink, revealLink and reissueLink, and nothing changes', async () => {
    const { email, client, project } = await newProject();
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const ro = createClient({ baseUrl: platform.baseUrl, token: (await issueToken(platform.deps.sql, email, { readOnly: true })).token });
    const calls = [
      ['createLink', () => ro.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bo' } })],
      ['revealLink', () => ro.call('revealLink', { params: { linkId: link.id } })],
      ['reissueLink', () => ro.call('reissueLink', { params: { linkId: link.id } })],
    ] as const;
    for (const [action, call] of calls) {
      expect(await refusal(call())).toEqual({ status: 403, body: { error: 'role cannot', reason: 'permission', action } });
    }
    expect((await client.call('listLinks', { params: { projectId: project.id } })).map((l) => l.id)).toEqual([link.id]);
    expect((await resolveLinkKey(platform.deps.sql, keyOf(url)))?.link.id).toBe(link.id);
    expect(await historyOf(client, project.id)).toEqual([]);
  });
});

describe('foreign and unknown ids', () => {
  it("answer 404 for another workspace's project or link, and for ids that are not UUIDs, changing nothing", async () => {
    const owner = await newProject();
    const { link, url } = await owner.client.call('createLink', { params: { projectId: owner.project.id }, body: { viewerName: 'Ada' } });
    const stranger = await platform.person({ plan: 'pro' });
    const calls = [
      () => stranger.client.call('createLink', { params: { projectId: owner.project.id }, body: { viewerName: 'Eve' } }),
      () => stranger.client.call('listLinks', { params: { projectId: owner.project.id } }),
      () => stranger.client.call('revokeLink', { params: { linkId: link.id } }),
      () => stranger.client.call('revealLink', { params: { linkId: link.id } }),
      () => stranger.client.call('reissueLink', { params: { linkId: link.id } }),
      () => owner.client.call('revokeLink', { params: { linkId: 'not-a-uuid' } }),
      () => owner.client.call('revealLink', { params: { linkId: crypto.randomUUID() } }),
      () => owner.client.call('listLinks', { params: { projectId: 'nope' } }),
    ];
    for (const call of calls) expect(await refusal(call())).toEqual({ status: 404, body: { error: 'not found' } });
    expect(await owner.client.call('listLinks', { params: { projectId: owner.project.id } })).toEqual([link]);
    expect((await resolveLinkKey(platform.deps.sql, keyOf(url)))?.link.id).toBe(link.id);
    expect(await historyOf(owner.client, owner.project.id)).toEqual([]);
  });

  it("a deleted project's links stop opening and answer 404", async () => {
    const { client, project } = await newProject();
    const { link, url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    await client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    expect(await resolveLinkKey(platform.deps.sql, keyOf(url))).toBeNull();
    for (const op of ['revokeLink', 'revealLink', 'reissueLink'] as const) {
      expect((await refusal(client.call(op, { params: { linkId: link.id } }))).status).toBe(404);
    }
  });

  it('resolveLinkKey answers null for an unknown, empty or absurdly long key', async () => {
    for (const key of ['pp_lnk_nothing', '', 'x'.repeat(10_000)]) expect(await resolveLinkKey(platform.deps.sql, key)).toBeNull();
  });
});
