import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { contentHost, deployStaticRoom, enterRoom, hit, shellData, type Jar } from '../../test/support/room.js';
import { waitFor } from '../../test/support/wait-for.js';
import { notFoundPage } from './html.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

async function roomWithLink(plan = 'solo') {
  const person = await platform.person({ plan });
  const { project, build } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Grace Prospect' },
  });
  return { person, project, build, url, link };
}

describe('entering through a link', () => {
  it('shows the shell with the apps in order, the default first, and asks who the viewer is', async () => {
    const { url, project } = await roomWithLink();
    const page = await hit(platform, new URL(url).pathname, { jar: new Map() });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain('frame-src http://*.rooms.localhost:');
    const data = shellData(page.text);
    expect(data.apps.map((a: { id: string }) => a.id)).toEqual(['web', 'admin']);
    expect(data.opened).toBe('admin');
    expect(data.ask).toEqual({ name: true, email: false, suggestedName: 'Grace Prospect', company: false, suggestedCompany: null });
    expect(data.personalised).toBe(false);
    expect(page.text).toContain('frame-laptop');
    expect(page.text).toContain('frame-phone');
    expect(page.text).toContain(project.name);
  });

  it("says when the link was last opened: null before, the latest visit's start after each entry (issue 29, item 7)", async () => {
    const { url, person, project, link } = await roomWithLink();
    const listed = async () =>
      (await person.client.call('listLinks', { params: { projectId: project.id } })).find((l) => l.id === link.id)!;
    expect(link.lastOpenedAt).toBeNull();
    expect((await listed()).lastOpenedAt).toBeNull();
    await enterRoom(platform, url);
    const first = (await listed()).lastOpenedAt!;
    expect(first).not.toBeNull();
    // A second viewer (another browser) opens it later: the time moves on, the first opening stays in the stage.
    await platform.deps.sql`update links set last_opened_at = last_opened_at - interval '1 hour' where id = ${link.id}`;
    await enterRoom(platform, url, { name: 'Bo Colleague' });
    const second = (await listed()).lastOpenedAt!;
    expect(Date.parse(second) - (Date.parse(first) - 3_600_000)).toBeGreaterThan(1_800_000);
    expect(Date.now() - Date.parse(second)).toBeLessThan(60_000);
    expect((await person.client.call('journey', { params: { linkId: link.id } })).link.lastOpenedAt).toBe(second);
  });

  it('moves the link to opened on first entry and starts a visit', async () => {
    const { url, person, project, link } = await roomWithLink();
    await enterRoom(platform, url);
    const links = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(links.find((l) => l.id === link.id)?.stage).toBe('opened');
    const visits = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ linkId: link.id, viewerName: 'Ada Viewer', endedAt: null });
  });

  it('keeps the content away until the viewer says who they are, and the email when asked', async () => {
    const { url, person, project } = await roomWithLink();
    await person.client.call('setAccess', { params: { projectId: project.id }, body: { requireEmail: true } });
    const jar: Jar = new Map();
    const data = shellData((await hit(platform, new URL(url).pathname, { jar })).text);
    expect(data.ask.email).toBe(true);
    const early = await hit(platform, `/room/${data.sessionId}/grant`, { method: 'POST', jar, json: { app: 'web' } });
    expect(early.status).toBe(403);
    const noEmail = await hit(platform, `/room/${data.sessionId}/hello`, { method: 'POST', jar, json: { name: 'Ada' } });
    expect(noEmail.status).toBe(400);
    expect(noEmail.json.issues[0].path).toBe('email');
    const badName = await hit(platform, `/room/${data.sessionId}/hello`, {
      method: 'POST',
      jar,
      json: { name: '', email: 'ada@example.com' },
    });
    expect(badName.status).toBe(400);
    const ok = await hit(platform, `/room/${data.sessionId}/hello`, {
      method: 'POST',
      jar,
      json: { name: 'Ada', email: 'ada@example.com' },
    });
    expect(ok.status).toBe(200);
    const grant = await hit(platform, `/room/${data.sessionId}/grant`, { method: 'POST', jar, json: { app: 'web' } });
    expect(grant.status).toBe(200);
    // Asked once per session: the same browser back at the link is not asked again.
    const again = shellData((await hit(platform, new URL(url).pathname, { jar })).text);
    expect(again.sessionId).toBe(data.sessionId);
    expect(again.ask.name).toBe(false);
  });

  it('refuses the shell endpoints without the session cookie or from another origin', async () => {
    const { url } = await roomWithLink();
    const { base, jar } = await enterRoom(platform, url);
    expect((await hit(platform, `${base}/grant`, { method: 'POST', json: { app: 'web' } })).status).toBe(404);
    expect(
      (await hit(platform, `${base}/grant`, { method: 'POST', jar, json: { app: 'web' }, headers: { origin: 'http://evil.example' } }))
        .status,
    ).toBe(403);
    // Without any Origin: not from the room's page either (a script-less form post, a tool), refused and nothing recorded.
    const bare = await hit(platform, `${base}/hello`, { method: 'POST', jar, json: { name: 'Mallory' }, noOrigin: true });
    expect(bare.status).toBe(403);
    expect(bare.json).toEqual({ error: 'role cannot', reason: 'permission', action: 'cross-origin' });
    const [session] = await platform.deps.sql<
      { viewerName: string }[]
    >`select viewer_name from room_sessions where id = ${base.split('/')[2]}`;
    expect(session.viewerName).not.toBe('Mallory');
    expect((await hit(platform, `${base}/grant`, { method: 'POST', jar, json: { app: 'nope' } })).status).toBe(404);
  });
});

describe('the content origin', () => {
  it('serves the build only through a grant, with type, ETag, 304, ranges, compression and folders', async () => {
    const { url, project } = await roomWithLink();
    const { entered, contentJar, host, grant } = await enterRoom(platform, url, { appId: 'admin' });
    expect(host).toBe(contentHost(platform, project));
    expect(new URL(grant.json.url).pathname).toBe('/__pp/enter');
    expect(entered.status).toBe(303);
    expect(entered.headers.location).toBe('/admin/');
    const setCookie = String(entered.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Partitioned/i);
    expect(setCookie).toMatch(/SameSite=None/i);

    // The grant is spent: a second use opens nothing.
    const target = new URL(grant.json.url);
    expect((await hit(platform, target.pathname + target.search, { host, jar: new Map() })).status).toBe(404);

    const admin = await hit(platform, '/admin/', { host, jar: contentJar });
    expect(admin.status).toBe(200);
    expect(admin.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(admin.text).toContain('Admin app');
    expect(admin.headers['content-security-policy']).toBe(`frame-ancestors ${new URL(platform.baseUrl).origin}`);

    const folder = await hit(platform, '/admin', { host, jar: contentJar });
    expect(folder.status).toBe(301);
    expect(folder.headers.location).toBe('/admin/');

    const home = await hit(platform, '/', { host, jar: contentJar });
    expect(home.text).toContain('Home app');
    const etag = String(home.headers.etag);
    const again = await hit(platform, '/', { host, jar: contentJar, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    const js = await hit(platform, '/app.js', { host, jar: contentJar, headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(js.body).toString()).toContain('dataset.ready');
    const gz = await hit(platform, '/app.js', { host, jar: contentJar, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toContain('dataset.ready');

    const part = await hit(platform, '/big.bin', { host, jar: contentJar, headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${3 * 1024 * 1024}`);
    expect(part.body).toEqual(Buffer.alloc(100, 7));
    const tail = await hit(platform, '/app.js', { host, jar: contentJar, headers: { range: 'bytes=-5' } });
    expect(tail.status).toBe(206);
    expect(tail.body.length).toBe(5);
    const beyond = await hit(platform, '/app.js', { host, jar: contentJar, headers: { range: 'bytes=999999-' } });
    expect(beyond.status).toBe(416);
    const whole = await hit(platform, '/big.bin', { host, jar: contentJar });
    expect(whole.body.length).toBe(3 * 1024 * 1024);
    const head = await hit(platform, '/big.bin', { host, jar: contentJar, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(3 * 1024 * 1024));

    expect((await hit(platform, '/missing.html', { host, jar: contentJar })).status).toBe(404);
    expect((await hit(platform, '/../../etc/passwd', { host, jar: contentJar })).status).toBe(404);
  });

  it('answers nothing without the cookie, with a cookie for another project, or on the platform origin', async () => {
    const a = await roomWithLink();
    const b = await roomWithLink();
    const inA = await enterRoom(platform, a.url);
    const hostB = contentHost(platform, b.project);
    const noCookie = await hit(platform, '/', { host: inA.host });
    expect(noCookie.status).toBe(404);
    expect(noCookie.body.equals(notFoundPage)).toBe(true);
    expect((await hit(platform, '/', { host: hostB, jar: inA.contentJar })).status).toBe(404);
    // The platform origin never serves build files.
    expect((await hit(platform, '/admin/', { jar: inA.jar })).status).toBe(404);
    // Nor does the content origin answer the builder's API.
    expect((await hit(platform, '/api/projects', { host: inA.host, headers: { authorization: `Bearer ${a.person.token}` } })).status).toBe(
      404,
    );
  });
});

describe('what a viewer meets', () => {
  it('gives the same Not found for a made-up key, a revoked link, a deleted project, a Free plan and an operator pause', async () => {
    const madeUp = await hit(platform, '/r/pp_link_madeup', { jar: new Map() });
    expect(madeUp.status).toBe(404);
    expect(madeUp.body.equals(notFoundPage)).toBe(true);

    const revoked = await roomWithLink();
    await revoked.person.client.call('revokeLink', { params: { linkId: revoked.link.id } });
    const r = await hit(platform, new URL(revoked.url).pathname, { jar: new Map() });
    expect([r.status, r.body.equals(madeUp.body)]).toEqual([404, true]);

    const deleted = await roomWithLink();
    await deleted.person.client.call('deleteProject', {
      params: { projectId: deleted.project.id },
      body: { confirm: deleted.project.slug },
    });
    const d = await hit(platform, new URL(deleted.url).pathname, { jar: new Map() });
    expect([d.status, d.body.equals(madeUp.body)]).toEqual([404, true]);

    const downgraded = await roomWithLink();
    await platform.deps
      .sql`update workspaces set plan = 'free' where id = (select workspace_id from projects where id = ${downgraded.project.id})`;
    const f = await hit(platform, new URL(downgraded.url).pathname, { jar: new Map() });
    expect([f.status, f.body.equals(madeUp.body)]).toEqual([404, true]);

    const takenDown = await roomWithLink();
    await platform.deps.sql`update projects set taken_down_at = now() where id = ${takenDown.project.id}`;
    const t = await hit(platform, new URL(takenDown.url).pathname, { jar: new Map() });
    expect([t.status, t.body.equals(madeUp.body)]).toEqual([404, true]);
  });

  it('stops a viewer already in once the link is revoked', async () => {
    const { url, person, link } = await roomWithLink();
    const { host, contentJar } = await enterRoom(platform, url);
    expect((await hit(platform, '/', { host, jar: contentJar })).status).toBe(200);
    await person.client.call('revokeLink', { params: { linkId: link.id } });
    // The room re-reads a session's standing every few seconds.
    await waitFor(
      'the revoked viewer to be refused',
      async () => (await hit(platform, '/', { host, jar: contentJar })).status === 404,
      10_000,
    );
  });

  it('stops the old address at once when the link is reissued', async () => {
    const { url, person, link } = await roomWithLink();
    const { url: fresh } = await person.client.call('reissueLink', { params: { linkId: link.id } });
    expect((await hit(platform, new URL(url).pathname, { jar: new Map() })).status).toBe(404);
    expect((await hit(platform, new URL(fresh).pathname, { jar: new Map() })).status).toBe(200);
  });

  it("shows the owner's pause note, and the room again once resumed", async () => {
    const { url, person, project } = await roomWithLink();
    await person.client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'Back after the <b>launch</b>' } });
    const paused = await hit(platform, new URL(url).pathname, { jar: new Map() });
    expect(paused.status).toBe(200);
    expect(paused.text).toContain('Paused for now');
    expect(paused.text).toContain('Back after the &lt;b&gt;launch&lt;/b&gt;');
    expect(paused.text).not.toContain('room-data');
    await person.client.call('resumeRoom', { params: { projectId: project.id } });
    expect((await hit(platform, new URL(url).pathname, { jar: new Map() })).text).toContain('room-data');
  });

  it("says not taking visits once the month's viewer-hours are used, while viewers already in keep the room", async () => {
    const { url, project, link } = await roomWithLink();
    const inside = await enterRoom(platform, url);
    // Solo has 50 viewer-hours: 51 hours of visits through a link this month use them. Only the
    // part of a visit within this UTC month counts, so early in a month (less than 51 hours in)
    // the hours are many visits side by side since its start, not one long one.
    await platform.deps.sql`
      insert into visits (workspace_id, project_id, link_id, started_at, last_seen_at, ended_at)
      select p.workspace_id, p.id, ${link.id}, w.started, now(), now()
      from projects p
      cross join (select greatest(date_trunc('month', now() at time zone 'UTC') at time zone 'UTC', now() - interval '51 hours') as started) w
      cross join lateral generate_series(1, ceil(51 * 3600 / greatest(extract(epoch from now() - w.started), 1))::int)
      where p.id = ${project.id}`;
    const newcomer = await hit(platform, new URL(url).pathname, { jar: new Map() });
    expect(newcomer.text).toContain('Not taking visits');
    const back = await hit(platform, new URL(url).pathname, { jar: inside.jar });
    expect(shellData(back.text).sessionId).toBe(inside.data.sessionId);
  });

  it("turns viewers away at the room's viewer number, counting each browser once an hour", async () => {
    const { url, person, project } = await roomWithLink();
    for (let i = 0; i < 5; i++) await enterRoom(platform, url); // Solo rooms hold 5 at once
    const turnedAway: Jar = new Map();
    const full = await hit(platform, new URL(url).pathname, { jar: turnedAway });
    expect(full.text).toContain('Demo full');
    await hit(platform, new URL(url).pathname, { jar: turnedAway });
    await hit(platform, new URL(url).pathname, { jar: new Map() });
    expect(await person.client.call('projectBounces', { params: { projectId: project.id } })).toEqual({ thisMonth: 2 });
  });

  it('seats exactly the viewer number when viewers race in: a seat is taken when the shell arrives', async () => {
    const { url, project } = await roomWithLink();
    const viewers = await Promise.all(
      Array.from({ length: 9 }, async () => {
        const jar: Jar = new Map();
        const page = await hit(platform, new URL(url).pathname, { jar });
        return { jar, base: `/room/${shellData(page.text).sessionId}` };
      }),
    );
    const arrivals = await Promise.all(viewers.map((v) => hit(platform, `${v.base}/arrive`, { method: 'POST', jar: v.jar, json: {} })));
    expect(arrivals.map((a) => a.status)).toEqual(viewers.map(() => 200));
    expect(arrivals.filter((a) => a.json.ok)).toHaveLength(5);
    expect(arrivals.filter((a) => a.json.full)).toHaveLength(4);
    const [row] = await platform.deps.sql<{ n: number }[]>`select count(*)::int as n from visits where project_id = ${project.id}`;
    expect(row.n).toBe(5);
    // Those turned away meet Demo full at the address (the shell reloads it), in the same session.
    const turnedAway = viewers[arrivals.findIndex((a) => a.json.full)];
    expect((await hit(platform, new URL(url).pathname, { jar: turnedAway.jar })).text).toContain('Demo full');
    // A beat cannot take the seat arrival refused.
    await platform.deps.sql`update room_sessions set last_seen_at = now() - interval '10 seconds' where project_id = ${project.id}`;
    await hit(platform, `${turnedAway.base}/beat`, { method: 'POST', jar: turnedAway.jar, json: { time: { web: 5 } } });
    expect((await platform.deps.sql<{ n: number }[]>`select count(*)::int as n from visits where project_id = ${project.id}`)[0].n).toBe(5);
  });

  it('bare fetches of the address hold no seat: a viewer whose shell arrives gets in', async () => {
    const { url, project } = await roomWithLink();
    // Solo rooms hold 5 at once: five fetches that never run the shell, with fresh cookies each.
    for (let i = 0; i < 5; i++) expect((await hit(platform, new URL(url).pathname, { jar: new Map() })).text).toContain('room-data');
    const viewer = await enterRoom(platform, url);
    expect(viewer.page.text).toContain('room-data');
    expect((await hit(platform, `${viewer.base}/arrive`, { method: 'POST', jar: viewer.jar, json: {} })).json).toEqual({ ok: true });
    const visits = await platform.deps.sql<{ n: number }[]>`select count(*)::int as n from visits where project_id = ${project.id}`;
    expect(visits[0].n).toBe(1);
  });
});

describe('visits', () => {
  it('records time per app and page from the beacon, ends on leave, and lists on Solo but not Free', async () => {
    const { url, person, project } = await roomWithLink();
    const { base, jar } = await enterRoom(platform, url);
    await platform.deps
      .sql`update visits set started_at = now() - interval '40 seconds', last_seen_at = now() - interval '30 seconds' where project_id = ${project.id}`;
    expect((await hit(platform, `${base}/beat`, { method: 'POST', jar, json: { time: { web: 20, admin: 8 } } })).status).toBe(200);
    // More seconds than have passed are not believed.
    await hit(platform, `${base}/beat`, { method: 'POST', jar, json: { time: { web: 5000 } } });
    await hit(platform, `${base}/leave`, {
      method: 'POST',
      jar,
      body: JSON.stringify({ time: {} }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    const [visit] = await person.client.call('listVisits', { params: { projectId: project.id } });
    expect(visit.time.admin).toBe(8);
    expect(visit.time.web).toBeGreaterThanOrEqual(20);
    expect(visit.time.web).toBeLessThan(40);
    expect(visit.endedAt).not.toBeNull();
    expect((await hit(platform, `${base}/beat`, { method: 'POST', jar, json: { time: 'x' } })).status).toBe(400);

    await platform.deps.sql`update workspaces set plan = 'free' where id = (select workspace_id from projects where id = ${project.id})`;
    const refused = await platform.fetch(`/api/projects/${project.id}/visits`, { token: person.token });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ reason: 'limit', limit: 'analytics', plan: 'free', upgrade: 'solo' });
  });

  it("answers 404 for another workspace's project", async () => {
    const { project } = await roomWithLink();
    const other = await platform.person({ plan: 'solo' });
    expect((await platform.fetch(`/api/projects/${project.id}/visits`, { token: other.token })).status).toBe(404);
    expect((await platform.fetch(`/api/projects/${project.id}/bounces`, { token: other.token })).status).toBe(404);
  });
});

describe('preview passes', () => {
  it('open the room once, marked preview, recording nothing; the same browser may reload', async () => {
    const { person, project, link } = await roomWithLink();
    const { url } = await person.client.call('previewPass', { params: { projectId: project.id } });
    const jar: Jar = new Map();
    const page = await hit(platform, new URL(url).pathname, { jar });
    expect(page.status).toBe(200);
    const data = shellData(page.text);
    expect(data.preview).toBe(true);
    expect(page.text).toContain('Preview');
    expect(shellData((await hit(platform, new URL(url).pathname, { jar })).text).sessionId).toBe(data.sessionId);
    const spent = await hit(platform, new URL(url).pathname, { jar: new Map() });
    expect([spent.status, spent.body.equals(notFoundPage)]).toEqual([404, true]);

    await hit(platform, `/room/${data.sessionId}/hello`, { method: 'POST', jar, json: { name: 'Owner' } });
    await hit(platform, `/room/${data.sessionId}/beat`, { method: 'POST', jar, json: { time: { web: 3 } } });
    expect(await person.client.call('listVisits', { params: { projectId: project.id } })).toEqual([]);
    const links = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(links.find((l) => l.id === link.id)?.stage).toBe('sent');
  });
});
