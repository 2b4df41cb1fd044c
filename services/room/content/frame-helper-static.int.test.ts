import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../../test/support/room.js';

// The frame helper in a static build's HTML (issue 29, item 4): once, where the parser opens the
// head, for document loads of any size; an app's own fetch of an HTML file gets the file.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform?.close();
});

it('puts the helper into documents loaded in the frame, large ones too, and never into what the app fetches', async () => {
  const templates = Array.from(
    { length: 300 },
    (_, i) => `<script type="text/x-red" data-template-name="n${i}"><head></head><body>${'x'.repeat(10_000)}</body></script>`,
  ).join('\n');
  const large = `<!DOCTYPE html>\n<!-- <head> -->\n<html><head><title>Editor</title></head><body>${templates}</body></html>`;
  const fragment = '<script type="text/x-red" data-template-name="inject"><head></head></script>';
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: {
      'index.html': '<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1></body></html>',
      'editor.html': large,
      'nodes.html': fragment,
    },
    manifest: { kind: 'static', name: 'Tags', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }] },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Tag' } });
  const viewer = await enterRoom(platform, url);
  const tag = `<script src="/__pp/frame-helper.js" data-room="${new URL(platform.baseUrl).origin}"></script>`;
  const frame = { 'sec-fetch-dest': 'iframe', accept: 'text/html,application/xhtml+xml' };

  const opened = await hit(platform, '/editor.html', { host: viewer.host, jar: viewer.contentJar, headers: frame });
  expect(large.length).toBeGreaterThan(2 * 1024 * 1024);
  expect(opened.status).toBe(200);
  expect(opened.text.split(tag).length - 1).toBe(1);
  expect(opened.text).toBe(large.replace('<head><title>', `<head>${tag}<title>`));

  const fetched = await hit(platform, '/nodes.html', {
    host: viewer.host,
    jar: viewer.contentJar,
    headers: { 'sec-fetch-dest': 'empty', accept: 'text/html' },
  });
  expect(fetched.text).toBe(fragment);
  expect(String(fetched.headers.vary)).toContain('sec-fetch-dest');
  const loaded = await hit(platform, '/nodes.html', { host: viewer.host, jar: viewer.contentJar, headers: frame });
  expect(loaded.text).toBe(tag + fragment);
  expect(loaded.headers.etag).not.toBe(fetched.headers.etag);
});
