import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../../../test/support/room.js';

// Each request's log line names its route's pattern and its time, and nothing secret: the room
// link's key, the viewer's session and the content grant stay out of the log, as the whole URL
// did before (when every line said "[redacted]" and no slow route could be found).

const lines: Record<string, unknown>[] = [];
const capture = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true, logTo: capture });
});
afterAll(async () => {
  await platform.close();
});

const requestLines = () => lines.filter((l) => l.msg === 'request');

describe('request log lines', () => {
  it('carry the route pattern, the status and the time, on the api', async () => {
    const person = await platform.person();
    const project = await person.client.call('createProject', { body: { slug: `log-${Date.now().toString(36)}`, name: 'Logged' } });
    const res = await platform.fetch(`/api/projects/${project.id}/links`, { token: person.token });
    expect(res.status).toBe(200);
    const line = requestLines().find((l) => l.route === '/api/projects/:projectId/links' && l.method === 'GET');
    expect(line).toMatchObject({ route: '/api/projects/:projectId/links', path: `/api/projects/${project.id}/links`, status: 200 });
    expect(typeof line!.ms).toBe('number');
    expect(line!.ms).toBeGreaterThanOrEqual(0);
    // The token that called it is nowhere in the log.
    expect(JSON.stringify(lines)).not.toContain(person.token);
  });

  it('redact the link key, the viewer session and the content grant, and only them', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Logged viewer' } });
    const key = new URL(url).pathname.split('/').pop()!;
    const viewer = await enterRoom(platform, url);
    const grant = new URL(viewer.grant.json.url).searchParams.get('g')!;
    const page = await hit(platform, '/index.html?tab=2', { host: viewer.host, jar: viewer.contentJar });
    expect(page.status).toBe(200);

    const all = JSON.stringify(lines);
    for (const secret of [key, viewer.data.sessionId, grant]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(all).not.toContain(secret);
    }
    const lineOf = (route: string) => requestLines().find((l) => l.route === route);
    expect(lineOf('/r/:key')).toMatchObject({ method: 'GET', path: '/r/[redacted]', status: 200 });
    expect(lineOf('/room/:sessionId/grant')).toMatchObject({ method: 'POST', path: '/room/[redacted]/grant' });
    expect(lineOf('/__pp/enter')).toMatchObject({ path: expect.stringMatching(/^\/__pp\/enter\?g=\[redacted\]&to=/), status: 303 });
    // A static file: its path is no secret, nor is a harmless query.
    const file = requestLines().find((l) => l.route === '/*' && l.path === '/index.html?tab=2');
    expect(file).toMatchObject({ status: 200 });
    expect(typeof file!.ms).toBe('number');
  });
});
