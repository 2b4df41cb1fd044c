import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../../test/support/room.js';
import { waitFor } from '../../../test/support/wait-for.js';

// A content origin belongs to one project, and keeps nothing of a viewer whose way in ended.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform?.close();
});

it('gives a new project that takes a released slug a new content origin', async () => {
  const person = await platform.person({ plan: 'solo' });
  const first = await deployStaticRoom(platform, person);
  const { url: firstUrl } = await person.client.call('createLink', {
    params: { projectId: first.project.id },
    body: { viewerName: 'Old' },
  });
  const before = await enterRoom(platform, firstUrl);
  await person.client.call('deleteProject', { params: { projectId: first.project.id }, body: { confirm: first.project.slug } });
  // The slug's 30-day hold is over.
  await platform.deps.sql`update projects set deleted_at = now() - interval '31 days' where id = ${first.project.id}`;

  const second = await deployStaticRoom(platform, person, { slug: first.project.slug });
  expect(second.project.slug).toBe(first.project.slug);
  const { url } = await person.client.call('createLink', { params: { projectId: second.project.id }, body: { viewerName: 'New' } });
  const after = await enterRoom(platform, url);
  expect(after.host).not.toBe(before.host);
  expect((await hit(platform, '/', { host: after.host, jar: after.contentJar })).status).toBe(200);
  // The old origin serves nothing, even to the old project's own cookie.
  expect((await hit(platform, '/', { host: before.host, jar: before.contentJar })).status).toBe(404);
});

it('tells the browser to forget the origin once the link is revoked', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Gone' } });
  const viewer = await enterRoom(platform, url);
  const served = await hit(platform, '/', { host: viewer.host, jar: viewer.contentJar });
  expect(served.status).toBe(200);
  expect(served.headers['clear-site-data']).toBeUndefined();

  await person.client.call('revokeLink', { params: { linkId: link.id } });
  // The room re-reads a session's standing every few seconds.
  const gone = await waitFor('the content origin to turn the revoked viewer away', async () => {
    const answer = await hit(platform, '/', { host: viewer.host, jar: viewer.contentJar });
    return answer.status === 404 ? answer : null;
  });
  expect(gone.headers['clear-site-data']).toBe('"cache", "cookies", "storage"');
});

it("serves no service worker script, so none can go on answering after the viewer's standing ends", async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: { 'index.html': '<!doctype html><title>SW</title>', 'sw.js': 'self.onfetch = (e) => e.respondWith(caches.match(e.request));' },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Worker' } });
  const viewer = await enterRoom(platform, url);
  const registering = await hit(platform, '/sw.js', { host: viewer.host, jar: viewer.contentJar, headers: { 'service-worker': 'script' } });
  expect(registering.status).toBe(403);
  expect(registering.headers['cache-control']).toBe('no-store');
  expect(registering.text).toBe('Service workers are not served on demo origins.\n');
  // The same file fetched as a script or a resource is served.
  const fetched = await hit(platform, '/sw.js', { host: viewer.host, jar: viewer.contentJar });
  expect(fetched.status).toBe(200);
  expect(fetched.text).toContain('self.onfetch');
});
