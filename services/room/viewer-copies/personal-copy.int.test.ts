import { describe, expect, it } from 'vitest';
import { liveContainerDemo, viewerOnCopy } from '../../../test/support/container-copy.js';
import type { Platform } from '../../../test/support/platform.js';
import { platformWithRunner } from '../../../test/support/suites.js';
import { hit } from '../../../test/support/room.js';
import { copySocket } from '../../../test/support/copy-socket.js';

// Personalised copies (issue 34, part 3) on a real podman copy, through the room's own port: a
// build that opts in (manifest `personalise`) gets the viewer's name and company as
// X-Demo-Viewer-* request headers, percent-encoded, on every request and WebSocket upgrade; one
// that does not gets nothing; and what a viewer sends of their own under those names never
// reaches either.

let platform: Platform;
platformWithRunner((p) => (platform = p));

/** What a viewer sends to pass for someone else. */
const forged = { 'x-demo-viewer-name': 'Mallory', 'x-demo-viewer-company': 'Evil%20Corp' };

/** The link revoked: the room closes the viewer's socket to their copy. */
async function leave(
  person: { client: Awaited<ReturnType<Platform['person']>>['client'] },
  linkId: string,
  ws: { closed: Promise<unknown> },
) {
  await person.client.call('revokeLink', { params: { linkId } });
  await ws.closed;
}

const viewerHeaders = (told: Record<string, string>) =>
  Object.fromEntries(Object.entries(told).filter(([n]) => n.startsWith('x-demo-viewer-')));

describe('a personalised container copy', () => {
  it("is told the viewer's name and company, percent-encoded, over HTTP and WebSocket, never what the viewer forged", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Personal', { personalise: true });
    const { url, link } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Zoë', viewerCompany: 'Société Générale' },
    });
    // The viewer's own answer wins over the link's name; the company comes from the link.
    const v = await viewerOnCopy(platform, url, { name: 'Zoë Ünal 日本' });
    expect(v.data.personalised).toBe(true);
    expect(v.data.ask).toMatchObject({ company: true, suggestedCompany: 'Société Générale' });

    const told = await hit(platform, '/headers', { host: v.host, jar: v.jar, headers: forged });
    expect(told.status).toBe(200);
    expect(viewerHeaders(told.json)).toEqual({
      'x-demo-viewer-name': 'Zo%C3%AB%20%C3%9Cnal%20%E6%97%A5%E6%9C%AC',
      'x-demo-viewer-company': 'Soci%C3%A9t%C3%A9%20G%C3%A9n%C3%A9rale',
    });
    expect(decodeURIComponent(told.json['x-demo-viewer-name'])).toBe('Zoë Ünal 日本');

    const ws = await copySocket(platform, v.host, v.jar, '/viewer', forged);
    expect((await ws.first).split(' ').sort()).toEqual([
      'x-demo-viewer-company=Soci%C3%A9t%C3%A9%20G%C3%A9n%C3%A9rale',
      'x-demo-viewer-name=Zo%C3%AB%20%C3%9Cnal%20%E6%97%A5%E6%9C%AC',
    ]);
    await leave(person, link.id, ws);
  });

  it('is told the company the viewer typed in who-are-you over the link’s', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Personal', { personalise: true });
    const { url } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada', viewerCompany: 'Old Co' },
    });
    const v = await viewerOnCopy(platform, url, { name: 'Ada', company: 'New Co' });
    const told = await hit(platform, '/headers', { host: v.host, jar: v.jar });
    expect(viewerHeaders(told.json)).toEqual({ 'x-demo-viewer-name': 'Ada', 'x-demo-viewer-company': 'New%20Co' });
  });
});

describe('a container copy that did not opt in', () => {
  it('is told nothing of who views it, and never what the viewer forged', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Personal');
    const { url, link } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Grace', viewerCompany: 'Navy' },
    });
    const v = await viewerOnCopy(platform, url, { name: 'Grace' });
    expect(v.data.personalised).toBe(false);
    expect(v.data.ask.company).toBe(false);
    const told = await hit(platform, '/headers', { host: v.host, jar: v.jar, headers: forged });
    expect(told.status).toBe(200);
    expect(viewerHeaders(told.json)).toEqual({});
    const ws = await copySocket(platform, v.host, v.jar, '/viewer', forged);
    expect(await ws.first).toBe('');
    await leave(person, link.id, ws);
  });
});
