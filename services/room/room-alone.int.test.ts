import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, hit, shellData } from '../../test/support/room.js';
import { buildRoomApp } from './app.js';

// Production runs the room as its own process; it must meet viewers exactly as the api's does.

let platform: Platform;
let room: Awaited<ReturnType<typeof buildRoomApp>>;
let roomPlatform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  const config = { ...platform.deps.config };
  room = await buildRoomApp({ ...platform.deps, config });
  await room.listen({ port: 0, host: '127.0.0.1' });
  const port = (room.server.address() as AddressInfo).port;
  Object.assign(config, { publicUrl: `http://127.0.0.1:${port}`, contentOrigin: `http://{slug}.rooms.localhost:${port}` });
  roomPlatform = { ...platform, baseUrl: `http://127.0.0.1:${port}`, deps: { ...platform.deps, config } };
});
afterAll(async () => {
  await room?.close();
  await platform?.close();
});

it('admits a viewer, grants the content origin and serves the build on its own', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Alone' } });
  const jar = new Map<string, string>();
  const data = shellData((await hit(roomPlatform, new URL(url).pathname, { jar })).text);
  await hit(roomPlatform, `/room/${data.sessionId}/hello`, { method: 'POST', jar, json: { name: 'Alone' } });
  const grant = await hit(roomPlatform, `/room/${data.sessionId}/grant`, { method: 'POST', jar, json: { app: 'admin' } });
  const target = new URL(grant.json.url);
  const contentJar = new Map<string, string>();
  await hit(roomPlatform, target.pathname + target.search, { host: target.host, jar: contentJar });
  const page = await hit(roomPlatform, '/admin/', { host: target.host, jar: contentJar });
  expect(page.status).toBe(200);
  expect(page.text).toContain('Admin app');
  expect((await hit(roomPlatform, '/healthz')).json).toEqual({ ok: true, service: 'demo-rooms-room' });
  // The room process has no API.
  expect((await hit(roomPlatform, '/api/projects')).status).toBe(404);
});
