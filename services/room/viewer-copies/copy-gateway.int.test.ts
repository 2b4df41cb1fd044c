import { describe, expect, it, vi } from 'vitest';
import { liveContainerDemo, viewerOnCopy } from '../../../test/support/container-copy.js';
import type { TestRunner } from '../../../test/support/runner/test-runner.js';
import { captureBlocked } from '../../data/capture-blocks.sql.js';
import { opsProjectCommands } from '../../ops/ops-projects.js';
import type { Platform } from '../../../test/support/platform.js';
import { platformWithRunner } from '../../../test/support/suites.js';
import { hit } from '../../../test/support/room.js';
import { copySocket } from '../../../test/support/copy-socket.js';

// The copy origin as a viewer's browser meets it, through the room's own port: a viewer whose
// standing ends (link revoked, room paused, project taken down) loses their open WebSockets at
// once, and a copy cannot set the room's framing policy or cookies for other origins.

let platform: Platform;
let runner: TestRunner;
platformWithRunner((p, r) => ([platform, runner] = [p, r]));

/** The longest a revoked viewer's socket may stay open: the standing check's bound (copy-gateway.ts), with room to spare on a shared machine. */
const closeBoundMs = 10_000;

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`still open after ${ms} ms`)), ms))]);

describe('a viewer whose standing ends', () => {
  it('loses the open WebSocket to their copy when the link is revoked', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Revoked' } });
    const v = await viewerOnCopy(platform, url);
    const ws = await copySocket(platform, v.host, v.jar);
    expect(await ws.echo('before')).toBe('before');
    await person.client.call('revokeLink', { params: { linkId: link.id } });
    const closed = await within(ws.closed, closeBoundMs);
    expect(closed).toEqual({ code: 4403, reason: 'no longer allowed' });
  });

  it('loses it when the owner pauses the room', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Paused' } });
    const v = await viewerOnCopy(platform, url);
    const ws = await copySocket(platform, v.host, v.jar);
    expect(await ws.echo('before')).toBe('before');
    await person.client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'Back soon' } });
    expect(await within(ws.closed, closeBoundMs)).toEqual({ code: 4403, reason: 'no longer allowed' });
  });

  it('loses it when the platform takes the project down', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Down' } });
    const v = await viewerOnCopy(platform, url);
    const ws = await copySocket(platform, v.host, v.jar);
    expect(await ws.echo('before')).toBe('before');
    await opsProjectCommands.takedown(platform.deps.sql, project.slug);
    expect(await within(ws.closed, closeBoundMs)).toEqual({ code: 4403, reason: 'no longer allowed' });
    // And a new socket is refused outright.
    await expect(copySocket(platform, v.host, v.jar)).rejects.toThrow(/no upgrade: 404/);
  });
});

describe("a copy's response headers", () => {
  it("never replace the room's framing policy, and its cookies stay host-only", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Headers' } });
    const v = await viewerOnCopy(platform, url);
    const answer = await hit(platform, '/hostile-headers', { host: v.host, jar: v.jar });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-frame-options']).toBeUndefined();
    const csp = [answer.headers['content-security-policy'] ?? []].flat();
    // Several policies arrive joined by commas, directives by semicolons.
    const ancestors = csp.flatMap((policy) =>
      policy
        .split(/[;,]/)
        .map((d) => d.trim())
        .filter((d) => d.startsWith('frame-ancestors')),
    );
    expect(ancestors).toEqual([`frame-ancestors ${new URL(platform.baseUrl).origin}`]);
    // The copy's other directives still hold.
    expect(csp.join(';')).toContain("script-src 'self'");
    // The copy's cookie host-only; beside it only the room's own copy token, for the data plane.
    const [theirs, ...rooms] = [answer.headers['set-cookie'] ?? []].flat();
    expect(theirs).toBe('x=1; Path=/; HttpOnly');
    expect(rooms.map((c) => c.split('=')[0])).toEqual(['__Host-pp_copy']);
    expect(answer.headers['clear-site-data']).toBe('"cache"');
  });

  it('are never sniffed into another type (nosniff on every answer, whatever the copy says)', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Sniff' } });
    const v = await viewerOnCopy(platform, url);
    for (const path of ['/headers', '/hostile-headers', '/page', '/hang-up']) {
      const answer = await hit(platform, path, { host: v.host, jar: v.jar });
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it("never include a service worker script: the browser's fetch of one is refused, the same address otherwise served", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Worker' } });
    const v = await viewerOnCopy(platform, url);
    const registering = await hit(platform, '/page', { host: v.host, jar: v.jar, headers: { 'service-worker': 'script' } });
    expect(registering.status).toBe(403);
    expect(registering.text).toBe('Service workers are not served on demo origins.\n');
    expect((await hit(platform, '/page', { host: v.host, jar: v.jar })).status).toBe(200);
  });

  it("answers a request the copy drops with the room's own words, styled without the copy", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Dropped' } });
    const v = await viewerOnCopy(platform, url);
    const answer = await hit(platform, '/hang-up', { host: v.host, jar: v.jar });
    expect(answer.status).toBe(502);
    expect(answer.headers['content-type']).toContain('text/html');
    expect(answer.text).toContain('The demo is not answering');
    // Its look travels with it: no stylesheet asked of the copy's origin.
    expect(answer.text).toMatch(/<style[^>]*>/);
    expect(answer.text).not.toMatch(/<link[^>]+stylesheet/);
  });

  it("carry the room's frame helper in the pages a viewer opens, and in nothing else", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Pages' } });
    const v = await viewerOnCopy(platform, url);
    const tag = `<script src="/__pp/frame-helper.js" data-room="${new URL(platform.baseUrl).origin}"></script>`;
    const opened = await hit(platform, '/page', {
      host: v.host,
      jar: v.jar,
      headers: { accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, br' },
    });
    expect(opened.status).toBe(200);
    expect(opened.text).toBe(`<!doctype html><html><head>${tag}<title>Demo</title></head><body><button id="go">Go</button></body></html>`);
    // Streamed with the tag in: another length than the copy's, told by the chunks.
    expect(opened.headers['content-length']).toBeUndefined();
    expect(opened.headers.etag).toBeUndefined();
    // A fetch of the same address gets the copy's own bytes.
    const fetched = await hit(platform, '/page', { host: v.host, jar: v.jar, headers: { accept: '*/*' } });
    expect(fetched.text).not.toContain('frame-helper');
    expect(fetched.headers.etag).toBe('"page-1"');
    const helper = await hit(platform, '/__pp/frame-helper.js', { host: v.host });
    expect(helper.status).toBe(200);
    expect(helper.headers['content-type']).toContain('javascript');
  });

  it("leave the helper out of a page whose own policy would stop it, and record that for the session's comments", async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Policies' } });
    const v = await viewerOnCopy(platform, url);
    const label = v.host.split('.')[0];
    const open = (path: string) => hit(platform, path, { host: v.host, jar: v.jar, headers: { accept: 'text/html' } });
    const blocked = () => captureBlocked(platform.deps.sql, v.sessionId, label);
    const writtenAt = async () =>
      (
        await platform.deps.sql<{ at: Date }[]>`select at from capture_blocks where session_id = ${v.sessionId} and origin_label = ${label}`
      )[0]?.at.getTime();

    const strict = await open(`/csp-page?csp=${encodeURIComponent("script-src 'none'")}`);
    expect(strict.status).toBe(200);
    expect(strict.text).not.toContain('frame-helper');
    // The copy's policy still reaches the viewer, beside the room's framing policy.
    expect(String(strict.headers['content-security-policy'])).toContain("script-src 'none'");
    await vi.waitFor(async () => expect(await blocked()).toBe(true));

    const open1 = await open('/page');
    expect(open1.text).toContain('/__pp/frame-helper.js');
    await vi.waitFor(async () => expect(await blocked()).toBe(false));
    // The same state again writes nothing.
    const at = await writtenAt();
    await open('/page');
    await open(`/csp-page?csp=${encodeURIComponent("script-src 'self'")}`);
    expect((await open('/page')).text).toContain('/__pp/frame-helper.js');
    expect(await writtenAt()).toBe(at);

    // Policies that stop it in other ways: a nonce only, strict-dynamic, a default of 'none', one of two policies.
    for (const csp of [
      "script-src 'nonce-abc'",
      "script-src 'strict-dynamic' 'nonce-abc' 'self'",
      "default-src 'none'",
      "script-src 'self', script-src https://cdn.example",
    ]) {
      expect((await open(`/csp-page?csp=${encodeURIComponent(csp)}`)).text, csp).not.toContain('frame-helper');
      await vi.waitFor(async () => expect(await blocked(), csp).toBe(true));
      await open('/page');
      await vi.waitFor(async () => expect(await blocked()).toBe(false));
    }
    // The library the helper imports is served on the copy origin too.
    const library = await hit(platform, '/__pp/capture.js', { host: v.host, headers: { 'accept-encoding': 'gzip' } });
    expect(library.status).toBe(200);
    expect(library.headers['content-type']).toContain('javascript');
    expect(library.headers['content-encoding']).toBe('gzip');
  });
});

describe('what a copy is told of its viewer', () => {
  // What an ingress in front of the platform adds, and what a viewer may send of their own accord.
  const addressed = {
    'x-forwarded-for': '203.0.113.7',
    'x-real-ip': '203.0.113.7',
    forwarded: 'for=203.0.113.7;proto=https',
    'true-client-ip': '203.0.113.7',
  };

  it('is not their address, over HTTP or a WebSocket: only the origin it is served on', async () => {
    const { person, project } = await liveContainerDemo(platform, 'Sockets');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Nobody' } });
    const v = await viewerOnCopy(platform, url);
    const told = await hit(platform, '/headers', { host: v.host, jar: v.jar, headers: addressed });
    expect(told.status).toBe(200);
    const headers = told.json as Record<string, string>;
    for (const name of ['x-forwarded-for', 'x-real-ip', 'forwarded', 'true-client-ip']) expect(headers[name], name).toBeUndefined();
    // Nor the address the room saw the request come from (loopback here).
    expect(JSON.stringify(headers)).not.toMatch(/203\.0\.113\.7|127\.0\.0\.1|::1/);
    expect(headers).toMatchObject({ 'x-forwarded-host': v.host, 'x-forwarded-proto': 'http' });

    const ws = await copySocket(platform, v.host, v.jar, '/headers', addressed);
    expect((await within(ws.first, closeBoundMs)).split(' ').sort()).toEqual([`x-forwarded-host=${v.host}`, 'x-forwarded-proto=http']);
    // The viewer goes (a tab closed): the copy keeps its half open, and the room still tears both
    // halves down, so the platform's close after this file does not wait on the socket (it used to hang).
    ws.socket.destroy();
    await within(ws.closed, closeBoundMs);
  });
});
