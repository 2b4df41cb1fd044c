import { expect } from 'vitest';
import type { Platform } from './platform.js';
import { uniqueSlug } from './refusal.js';
import { hit, shellData, type Jar } from './room.js';
import { demoBundle } from './runner/demo-bundle.js';

// A live container demo and a viewer let into their copy, as the copy-origin tests need them
// (the copy gateway, personalised copies, the queue): one deploy of the test demo through the
// API, and one viewer's walk from the link to the copy's origin.

/** A pro builder's project whose live build is the test demo (one app, `web`); `extra` joins its manifest. */
export async function liveContainerDemo(platform: Platform, name: string, extra: Record<string, unknown> = {}) {
  const person = await platform.person({ plan: 'pro' });
  const project = await person.client.call('createProject', { body: { slug: uniqueSlug('cd'), name } });
  const bytes = await demoBundle();
  const { uploadId, putUrl } = await person.client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'container', sizeBytes: bytes.length },
  });
  await platform.fetch(putUrl, { method: 'PUT', token: person.token, body: bytes });
  const manifest = {
    kind: 'container',
    name,
    apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }],
    run: { start: ['node', 'server.js'] },
    ...extra,
  };
  const build = await person.client.call('createBuild', {
    params: { projectId: project.id },
    body: { uploadId, manifest: manifest as never },
  });
  await person.client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
  return { person, project };
}

/** A viewer who says who they are and is let into their copy: its host, the jar with its view cookie, the room's session. */
export async function viewerOnCopy(platform: Platform, url: string, hello: { name: string; company?: string } = { name: 'V' }) {
  const roomJar: Jar = new Map();
  const data = shellData((await hit(platform, new URL(url).pathname, { jar: roomJar })).text);
  expect((await hit(platform, `/room/${data.sessionId}/hello`, { method: 'POST', jar: roomJar, json: hello })).status).toBe(200);
  const grant = () => hit(platform, `/room/${data.sessionId}/grant`, { method: 'POST', jar: roomJar, json: { app: 'web' } });
  let answer = (await grant()).json;
  // A first copy waits for its image and start; a loaded machine wants the minute.
  const until = Date.now() + 60_000;
  while (answer.state !== 'ready' && Date.now() < until) answer = (await grant()).json;
  expect(answer.state).toBe('ready');
  const enter = new URL(answer.url);
  const jar: Jar = new Map();
  expect((await hit(platform, enter.pathname + enter.search, { host: enter.host, jar })).status).toBe(303);
  return { host: enter.host, jar, data, sessionId: data.sessionId as string };
}
