import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@demo-rooms/contract';
import { hashSecret } from '../../core/infra/ids.js';
import { issueToken } from '../../ops/ops.service.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { spendPreviewPass } from '../../data/preview-passes.sql.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const slug = () => uniqueSlug('r');

async function newProject(plan?: string, name?: string) {
  const person = await platform.person({ plan, name });
  const project = await person.client.call('createProject', { body: { slug: slug(), name: 'Demo' } });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  const [{ personId }] = await platform.deps.sql<{ personId: string }[]>`select id as person_id from people where email = ${person.email}`;
  return { ...person, project, workspaceId, personId };
}

/** Makes a build with these app ids live, straight in the tables (no archive needed to order apps). */
async function goLive(projectId: string, workspaceId: string, appIds: string[]) {
  const sql = platform.deps.sql;
  const [upload] = await sql<{ id: string }[]>`
    insert into uploads (workspace_id, project_id, kind, size_bytes, state) values (${workspaceId}, ${projectId}, 'static', 1, 'used') returning id`;
  const manifest = {
    kind: 'static',
    name: 'Demo',
    output: 'dist',
    apps: appIds.map((id) => ({ id, name: id, path: '/', device: 'laptop' })),
  };
  const buildId = randomUUID();
  await sql`insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes) values (${buildId}, ${workspaceId}, ${projectId}, ${upload.id}, 'static', ${sql.json(manifest)}, 1)`;
  await sql`update projects set live_build_id = ${buildId} where id = ${projectId}`;
}

describe("the owner's pause", () => {
  it('pauses with a note, changes only the note when paused again, resumes, and records each in the history', async () => {
    const { client, project, personId } = await newProject(undefined, 'Grace Hopper');
    const params = { projectId: project.id };
    expect(await client.call('getRoomPause', { params })).toEqual({ owner: null, system: null, viewers: 'room' });

    const paused = await client.call('pauseRoom', { params, body: { message: 'Back at noon' } });
    expect(paused).toEqual({
      owner: { by: { userId: personId, displayName: 'Grace Hopper' }, message: 'Back at noon', at: expect.any(String) },
      system: null,
      viewers: 'paused',
    });
    expect(await client.call('getRoomPause', { params })).toEqual(paused);

    const renoted = await client.call('pauseRoom', { params, body: { message: 'Back at one' } });
    expect(renoted).toEqual({ ...paused, owner: { ...paused.owner, message: 'Back at one' } });
    const silent = await client.call('pauseRoom', { params, body: { message: null } });
    expect(silent.owner).toMatchObject({ message: null, at: paused.owner!.at });

    expect(await client.call('resumeRoom', { params })).toEqual({ owner: null, system: null, viewers: 'room' });
    expect(await refusal(client.call('resumeRoom', { params }))).toEqual({
      status: 409,
      body: { error: 'refused: taken', reason: 'taken', detail: expect.any(String) },
    });

    const history = await client.call('projectHistory', { params });
    expect(history.map((h) => [h.kind, h.by, h.message, h.viewer, h.until])).toEqual([
      ['room.resume', 'Grace Hopper', null, null, null],
      ['room.message', 'Grace Hopper', null, null, null],
      ['room.message', 'Grace Hopper', 'Back at one', null, null],
      ['room.pause', 'Grace Hopper', 'Back at noon', null, null],
    ]);
    const times = history.map((h) => Date.parse(h.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('is 409 taken to resume a room never paused, and writes nothing', async () => {
    const { client, project } = await newProject();
    expect((await refusal(client.call('resumeRoom', { params: { projectId: project.id } }))).status).toBe(409);
    expect(await client.call('projectHistory', { params: { projectId: project.id } })).toEqual([]);
  });

  it('answers 400 for a note over 280 characters or a missing message, and pauses nothing', async () => {
    const { token, client, project } = await newProject();
    for (const json of [{ message: 'x'.repeat(281) }, {}]) {
      expect((await platform.fetch(`/api/projects/${project.id}/pause`, { method: 'POST', token, json })).status).toBe(400);
    }
    await client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'x'.repeat(280) } });
  });

  it('shows a platform pause as system, which wins for viewers and stays after the owner resumes', async () => {
    const { client, project, workspaceId } = await newProject();
    const params = { projectId: project.id };
    const sql = platform.deps.sql;
    await sql`update projects set taken_down_at = now() where id = ${project.id}`;
    expect(await client.call('getRoomPause', { params })).toEqual({ owner: null, system: 'takedown', viewers: 'unavailable' });
    const both = await client.call('pauseRoom', { params, body: { message: 'hold on' } });
    expect(both).toMatchObject({ owner: { message: 'hold on' }, system: 'takedown', viewers: 'unavailable' });
    expect(await client.call('resumeRoom', { params })).toEqual({ owner: null, system: 'takedown', viewers: 'unavailable' });
    await sql`update projects set taken_down_at = null, over_limit_at = now() where id = ${project.id}`;
    expect((await client.call('getRoomPause', { params })).system).toBe('over-limit');
    await sql`update workspaces set suspended_at = now() where id = ${workspaceId}`;
    expect((await client.call('getRoomPause', { params })).system).toBe('suspended');
  });

  it('shows who paused as null once that person is gone', async () => {
    const owner = await newProject();
    await owner.client.call('pauseRoom', { params: { projectId: owner.project.id }, body: { message: null } });
    const other = await platform.person({ name: 'Temp' });
    const [{ id }] = await platform.deps.sql<{ id: string }[]>`select id from people where email = ${other.email}`;
    await platform.deps.sql`update rooms set paused_by = ${id} where project_id = ${owner.project.id}`;
    await platform.deps.sql`delete from people where id = ${id}`;
    expect((await owner.client.call('getRoomPause', { params: { projectId: owner.project.id } })).owner).toMatchObject({ by: null });
  });
});

describe('the project history', () => {
  it('is append-only', async () => {
    const { client, project } = await newProject();
    await client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'a' } });
    await expect(platform.deps.sql`update project_history set message = 'b' where project_id = ${project.id}`).rejects.toThrow(
      /append-only/,
    );
    expect((await client.call('projectHistory', { params: { projectId: project.id } }))[0].message).toBe('a');
  });
});

describe('access', () => {
  it('reads and sets requireEmail; privateLinks follows the plan', async () => {
    const { client, project, workspaceId } = await newProject();
    const params = { projectId: project.id };
    expect(await client.call('getAccess', { params })).toEqual({ requireEmail: false, privateLinks: false });
    expect(await client.call('setAccess', { params, body: { requireEmail: true } })).toEqual({ requireEmail: true, privateLinks: false });
    await platform.deps.sql`update workspaces set plan = 'solo' where id = ${workspaceId}`;
    expect(await client.call('getAccess', { params })).toEqual({ requireEmail: true, privateLinks: true });
    expect(await client.call('setAccess', { params, body: { requireEmail: false } })).toEqual({ requireEmail: false, privateLinks: true });
  });
});

describe('preview passes', () => {
  const keyOf = (url: string) => new URL(url).pathname.replace(/^\/preview\//, '');

  it('answers a one-time address, kept only as a hash, that the room spends once', async () => {
    const { token, project } = await newProject();
    const res = await platform.fetch(`/api/projects/${project.id}/preview`, { method: 'POST', token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.url).toMatch(new RegExp(`^${platform.baseUrl}/preview/pp_pre_[A-Za-z0-9_-]{32}$`));
    const key = keyOf(res.body.url);
    const [row] = await platform.deps.sql<{ keyHash: Buffer; ttl: number }[]>`
      select key_hash, extract(epoch from expires_at - created_at)::int as ttl from preview_passes where project_id = ${project.id}`;
    expect(row.keyHash.equals(hashSecret(key))).toBe(true);
    expect(row.ttl).toBe(120);

    expect(await spendPreviewPass(platform.deps.sql, key)).toBe(project.id);
    expect(await spendPreviewPass(platform.deps.sql, key)).toBeNull();
  });

  it('is spent by exactly one of racing arrivals', async () => {
    const { client, project } = await newProject();
    const { url } = await client.call('previewPass', { params: { projectId: project.id } });
    const spent = await Promise.all(Array.from({ length: 8 }, () => spendPreviewPass(platform.deps.sql, keyOf(url))));
    expect(spent.filter((p) => p !== null)).toEqual([project.id]);
  });

  it('opens nothing once its 120 seconds are over, nor for a deleted project or an unknown key', async () => {
    const { client, project } = await newProject();
    const late = keyOf((await client.call('previewPass', { params: { projectId: project.id } })).url);
    await platform.deps.sql`update preview_passes set expires_at = now() - interval '1 second' where key_hash = ${hashSecret(late)}`;
    expect(await spendPreviewPass(platform.deps.sql, late)).toBeNull();

    const orphan = keyOf((await client.call('previewPass', { params: { projectId: project.id } })).url);
    await client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    expect(await spendPreviewPass(platform.deps.sql, orphan)).toBeNull();

    for (const key of ['pp_pre_unknown', '', 'x'.repeat(5000)]) expect(await spendPreviewPass(platform.deps.sql, key)).toBeNull();
  });
});

describe('room setup', () => {
  it('adds pages last, replaces a page by title in place, orders and removes them with ranks closed', async () => {
    const { client, project } = await newProject();
    const params = { projectId: project.id };
    expect(await client.call('getRoomSetup', { params })).toEqual({ appOrder: null, pages: [] });

    const a = await client.call('addPage', { params, body: { title: 'About', kind: 'markdown', content: '# About' } });
    expect(a).toEqual({ id: expect.any(String), title: 'About', kind: 'markdown' });
    const b = await client.call('addPage', { params, body: { title: 'Pricing', kind: 'html', content: '<p>cheap</p>' } });
    const c = await client.call('addPage', { params, body: { title: 'FAQ', kind: 'markdown', content: '' } });
    const again = await client.call('addPage', { params, body: { title: 'About', kind: 'html', content: '<h1>About us</h1>' } });
    expect(again).toEqual({ id: a.id, title: 'About', kind: 'html' });
    const [stored] = await platform.deps.sql<{ content: string }[]>`select content from room_pages where id = ${a.id}`;
    expect(stored.content).toBe('<h1>About us</h1>');

    const setup = await client.call('getRoomSetup', { params });
    expect(setup.pages).toEqual([
      { id: a.id, title: 'About', kind: 'html', position: 0 },
      { id: b.id, title: 'Pricing', kind: 'html', position: 1 },
      { id: c.id, title: 'FAQ', kind: 'markdown', position: 2 },
    ]);

    const ordered = await client.call('orderPages', { params, body: { ids: [c.id, a.id, b.id] } });
    expect(ordered.pages.map((p) => [p.id, p.position])).toEqual([
      [c.id, 0],
      [a.id, 1],
      [b.id, 2],
    ]);

    const removed = await client.call('removePage', { params: { projectId: project.id, pageId: a.id } });
    expect(removed.pages.map((p) => [p.id, p.position])).toEqual([
      [c.id, 0],
      [b.id, 1],
    ]);
    expect((await refusal(client.call('removePage', { params: { projectId: project.id, pageId: a.id } }))).status).toBe(404);
    expect((await refusal(client.call('removePage', { params: { projectId: project.id, pageId: 'nope' } }))).status).toBe(404);

    const d = await client.call('addPage', { params, body: { title: 'Docs', kind: 'markdown', content: 'x' } });
    expect((await client.call('getRoomSetup', { params })).pages.map((p) => [p.id, p.position])).toEqual([
      [c.id, 0],
      [b.id, 1],
      [d.id, 2],
    ]);
  });

  it('is 422 order unless every page is named exactly once, and nothing moves', async () => {
    const { client, project } = await newProject();
    const params = { projectId: project.id };
    const a = await client.call('addPage', { params, body: { title: 'A', kind: 'markdown', content: 'a' } });
    const b = await client.call('addPage', { params, body: { title: 'B', kind: 'markdown', content: 'b' } });
    for (const ids of [[a.id], [a.id, b.id, a.id], [b.id, a.id, randomUUID()], [b.id, 'nope'], []]) {
      expect(await refusal(client.call('orderPages', { params, body: { ids } }))).toEqual({
        status: 422,
        body: { error: 'refused: order', reason: 'order', detail: expect.any(String) },
      });
    }
    expect((await client.call('getRoomSetup', { params })).pages.map((p) => p.id)).toEqual([a.id, b.id]);
    expect(
      (
        await client.call('orderPages', {
          params: { projectId: (await client.call('createProject', { body: { slug: slug(), name: 'Empty' } })).id },
          body: { ids: [] },
        })
      ).pages,
    ).toEqual([]);
  });

  it('answers 400 for a title or content out of bounds and stores the largest allowed page', async () => {
    const { token, client, project } = await newProject();
    for (const json of [
      { title: '', kind: 'markdown', content: 'x' },
      { title: 'x'.repeat(81), kind: 'markdown', content: 'x' },
      { title: 'T', kind: 'pdf', content: 'x' },
      { title: 'T', kind: 'html', content: 'x'.repeat(2_000_001) },
    ]) {
      expect((await platform.fetch(`/api/projects/${project.id}/pages`, { method: 'POST', token, json })).status).toBe(400);
    }
    expect((await client.call('getRoomSetup', { params: { projectId: project.id } })).pages).toEqual([]);
    const big = await client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'Big', kind: 'markdown', content: 'é'.repeat(2_000_000) },
    });
    const [row] = await platform.deps.sql<{ n: number }[]>`select char_length(content) as n from room_pages where id = ${big.id}`;
    expect(row.n).toBe(2_000_000);
  });

  it('refuses a 31st page with 422 size and stores nothing; a page of an existing title is still replaced', async () => {
    const { token, client, project } = await newProject();
    const params = { projectId: project.id };
    for (let i = 0; i < 30; i++)
      await client.call('addPage', { params, body: { title: `Page ${i}`, kind: 'markdown', content: `page ${i}` } });
    const before = await client.call('getRoomSetup', { params });
    expect(before.pages).toHaveLength(30);
    const extra = await platform.fetch(`/api/projects/${project.id}/pages`, {
      method: 'POST',
      token,
      json: { title: 'Page 30', kind: 'markdown', content: 'one too many' },
    });
    expect({ status: extra.status, body: extra.body }).toEqual({
      status: 422,
      body: { error: 'refused: size', reason: 'size', detail: expect.stringContaining('at most 30 pages') },
    });
    expect(await client.call('getRoomSetup', { params })).toEqual(before);
    const [{ n }] = await platform.deps.sql<{ n: number }[]>`select count(*)::int as n from room_pages where project_id = ${project.id}`;
    expect(n).toBe(30);
    // Replacing one of the thirty adds nothing, so it goes.
    const again = await client.call('addPage', { params, body: { title: 'Page 7', kind: 'html', content: '<p>new</p>' } });
    expect(again).toEqual({ id: before.pages[7].id, title: 'Page 7', kind: 'html' });
  });

  it('refuses a page that takes the room past 5,000,000 characters together, and changes nothing', async () => {
    const { token, client, project } = await newProject();
    const params = { projectId: project.id };
    const a = await client.call('addPage', { params, body: { title: 'A', kind: 'html', content: 'a'.repeat(2_000_000) } });
    await client.call('addPage', { params, body: { title: 'B', kind: 'html', content: 'b'.repeat(2_000_000) } });
    const over = await platform.fetch(`/api/projects/${project.id}/pages`, {
      method: 'POST',
      token,
      json: { title: 'C', kind: 'html', content: 'c'.repeat(1_000_001) },
    });
    expect({ status: over.status, body: over.body }).toEqual({
      status: 422,
      body: { error: 'refused: size', reason: 'size', detail: expect.stringContaining('5,000,000 characters') },
    });
    expect((await client.call('getRoomSetup', { params })).pages.map((p) => p.title)).toEqual(['A', 'B']);
    // Replacing A counts A's new size instead of its old one: within the total it goes, past it not.
    const grown = await platform.fetch(`/api/projects/${project.id}/pages`, {
      method: 'POST',
      token,
      json: { title: 'A', kind: 'html', content: 'x'.repeat(1_000_000) + 'y'.repeat(1_000_000) },
    });
    expect(grown.status).toBe(200);
    const [row] = await platform.deps.sql<{ content: string }[]>`select left(content, 1) as content from room_pages where id = ${a.id}`;
    expect(row.content).toBe('x');
    await client.call('addPage', { params, body: { title: 'C', kind: 'html', content: 'c'.repeat(1_000_000) } });
    expect((await client.call('getRoomSetup', { params })).pages.map((p) => p.title)).toEqual(['A', 'B', 'C']);
  });

  it("stores each page with its safe HTML and that HTML's hash, made when it is added", async () => {
    const { client, project } = await newProject();
    const params = { projectId: project.id };
    const page = await client.call('addPage', {
      params,
      body: { title: 'Notes', kind: 'markdown', content: '# Notes\n\n**bold**<script>alert(1)</script><img src=x onerror="alert(2)">' },
    });
    const [row] = await platform.deps.sql<
      { html: string; htmlHash: string }[]
    >`select html, html_hash from room_pages where id = ${page.id}`;
    expect(row.html).toContain('<h1>Notes</h1>');
    expect(row.html).toContain('<strong>bold</strong>');
    expect(row.html).not.toMatch(/script|onerror/);
    expect(row.htmlHash).toBe(createHash('sha256').update(row.html).digest('base64url'));
    await client.call('addPage', { params, body: { title: 'Notes', kind: 'html', content: '<p>replaced</p>' } });
    const [after] = await platform.deps.sql<{ html: string }[]>`select html from room_pages where id = ${page.id}`;
    expect(after.html).toBe('<p>replaced</p>');
  });

  it('keeps up to many racing page additions without a gap or a repeated position', async () => {
    const { client, project } = await newProject();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.call('addPage', { params: { projectId: project.id }, body: { title: `P${i}`, kind: 'markdown', content: '' } }),
      ),
    );
    expect((await client.call('getRoomSetup', { params: { projectId: project.id } })).pages.map((p) => p.position)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
  });

  it("orders apps: named first in order, then the rest in the live manifest's order, unknown ids ignored", async () => {
    const { client, project, workspaceId } = await newProject();
    const params = { projectId: project.id };
    // Nothing live: no app is known, so nothing is stored.
    expect((await client.call('orderApps', { params, body: { ids: ['web'] } })).appOrder).toBeNull();

    await goLive(project.id, workspaceId, ['web', 'admin', 'phone']);
    expect((await client.call('getRoomSetup', { params })).appOrder).toBeNull();
    expect((await client.call('orderApps', { params, body: { ids: ['phone', 'ghost', 'phone'] } })).appOrder).toEqual([
      'phone',
      'web',
      'admin',
    ]);
    expect((await client.call('getRoomSetup', { params })).appOrder).toEqual(['phone', 'web', 'admin']);

    // A new build drops phone and adds tablet: the order follows it.
    await goLive(project.id, workspaceId, ['tablet', 'admin', 'web']);
    expect((await client.call('getRoomSetup', { params })).appOrder).toEqual(['tablet', 'admin', 'web']);
    expect((await client.call('orderApps', { params, body: { ids: ['web', 'admin'] } })).appOrder).toEqual(['web', 'admin', 'tablet']);
    expect((await client.call('orderApps', { params, body: { ids: [] } })).appOrder).toBeNull();
  });

  it('answers 400 for more than 100 ids', async () => {
    const { token, project } = await newProject();
    const ids = Array.from({ length: 101 }, (_, i) => `a${i}`);
    expect((await platform.fetch(`/api/projects/${project.id}/room/apps`, { method: 'POST', token, json: { ids } })).status).toBe(400);
    expect((await platform.fetch(`/api/projects/${project.id}/room/pages`, { method: 'POST', token, json: { ids } })).status).toBe(400);
  });
});

describe('foreign and unknown ids', () => {
  it("answer 404 for every room endpoint on another workspace's project, and change nothing", async () => {
    const owner = await newProject(undefined, 'Owner');
    const projectId = owner.project.id;
    const page = await owner.client.call('addPage', {
      params: { projectId },
      body: { title: 'Mine', kind: 'markdown', content: 'secret' },
    });
    await owner.client.call('pauseRoom', { params: { projectId }, body: { message: 'mine' } });
    const before = {
      pause: await owner.client.call('getRoomPause', { params: { projectId } }),
      setup: await owner.client.call('getRoomSetup', { params: { projectId } }),
      access: await owner.client.call('getAccess', { params: { projectId } }),
      history: await owner.client.call('projectHistory', { params: { projectId } }),
    };
    const stranger = await newProject('pro');
    const s = stranger.client;
    const calls = [
      () => s.call('getRoomPause', { params: { projectId } }),
      () => s.call('pauseRoom', { params: { projectId }, body: { message: 'stolen' } }),
      () => s.call('resumeRoom', { params: { projectId } }),
      () => s.call('projectHistory', { params: { projectId } }),
      () => s.call('getAccess', { params: { projectId } }),
      () => s.call('setAccess', { params: { projectId }, body: { requireEmail: true } }),
      () => s.call('previewPass', { params: { projectId } }),
      () => s.call('getRoomSetup', { params: { projectId } }),
      () => s.call('orderApps', { params: { projectId }, body: { ids: [] } }),
      () => s.call('orderPages', { params: { projectId }, body: { ids: [page.id] } }),
      () => s.call('addPage', { params: { projectId }, body: { title: 'Mine', kind: 'html', content: 'stolen' } }),
      () => s.call('removePage', { params: { projectId, pageId: page.id } }),
      // The stranger's own project, naming the owner's page.
      () => s.call('removePage', { params: { projectId: stranger.project.id, pageId: page.id } }),
      () => owner.client.call('getRoomPause', { params: { projectId: 'not-a-uuid' } }),
      () => owner.client.call('previewPass', { params: { projectId: randomUUID() } }),
    ];
    for (const call of calls) expect(await refusal(call())).toEqual({ status: 404, body: { error: 'not found' } });
    expect({
      pause: await owner.client.call('getRoomPause', { params: { projectId } }),
      setup: await owner.client.call('getRoomSetup', { params: { projectId } }),
      access: await owner.client.call('getAccess', { params: { projectId } }),
      history: await owner.client.call('projectHistory', { params: { projectId } }),
    }).toEqual(before);
    const [stored] = await platform.deps.sql<{ content: string }[]>`select content from room_pages where id = ${page.id}`;
    expect(stored.content).toBe('secret');
    const [passes] = await platform.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from preview_passes where project_id = ${projectId}`;
    expect(passes.n).toBe(0);
  });

  it('a read-only connection may read and run the room (it reveals no link address)', async () => {
    const { email, project } = await newProject();
    const ro = createClient({ baseUrl: platform.baseUrl, token: (await issueToken(platform.deps.sql, email, { readOnly: true })).token });
    await ro.call('pauseRoom', { params: { projectId: project.id }, body: { message: null } });
    expect((await ro.call('getRoomPause', { params: { projectId: project.id } })).viewers).toBe('paused');
  });
});
