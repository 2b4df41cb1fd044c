import { request } from 'node:http';
import { ShellData } from '@demo-rooms/contract';
import { staticLabelOf } from '../../services/room/origins.js';
import type { Frame, Page } from 'playwright-core';
import { expect } from 'vitest';
import { tgz } from './archives.js';
import { desktopChrome } from './browser.js';
import type { Platform } from './platform.js';
import { uniqueSlug } from './refusal.js';

type Person = Awaited<ReturnType<Platform['person']>>;

/** A static build with two apps (the second the default), deployed and live. */
export async function deployStaticRoom(
  platform: Platform,
  person: Person,
  opts: { files?: Record<string, string | Buffer>; manifest?: object; slug?: string } = {},
) {
  const { client, token } = person;
  const project = await client.call('createProject', { body: { slug: opts.slug ?? uniqueSlug('rm'), name: 'Room demo' } });
  const files = opts.files ?? {
    'index.html': '<!doctype html><title>Home</title><h1 id="home">Home app</h1><script src="/app.js"></script>',
    'app.js': `document.body.dataset.ready = "yes"; // ${'padding '.repeat(200)}`,
    'admin/index.html': '<!doctype html><title>Admin</title><h1 id="admin">Admin app</h1>',
    'big.bin': Buffer.alloc(3 * 1024 * 1024, 7),
  };
  const bytes = await tgz(files);
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  // As pitch sends it (services/cli/deploy-steps/upload.ts): a 5xx puts the upload back for
  // another try (the api's streamed write to the store cannot be replayed by the store's client
  // when its connection fails), and the bytes are sent again.
  let put = await platform.fetch(putUrl, { method: 'PUT', token, body: bytes, headers: { 'content-type': 'application/gzip' } });
  for (let tries = 1; put.status >= 500 && tries < 3; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200 * tries));
    put = await platform.fetch(putUrl, { method: 'PUT', token, body: bytes, headers: { 'content-type': 'application/gzip' } });
  }
  if (put.status !== 204) throw new Error(`upload answered ${put.status}: ${JSON.stringify(put.body)}`);
  const manifest = opts.manifest ?? {
    kind: 'static',
    name: 'Room demo',
    output: 'dist',
    apps: [
      { id: 'web', name: 'Website', path: '/', device: 'laptop' },
      { id: 'admin', name: 'Admin', path: '/admin/', device: 'phone', default: true },
    ],
  };
  const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest as never } });
  await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
  return { project, build };
}

export type Jar = Map<string, string>;

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; text: string; json: any };

/**
 * A raw HTTP request to the platform's port with any Host, keeping cookies in `jar` (name → value)
 * the way a browser would for that host: content origins are other hosts on the same port.
 */
export function hit(
  platform: Platform,
  path: string,
  opts: {
    host?: string;
    method?: string;
    jar?: Jar;
    headers?: Record<string, string>;
    json?: unknown;
    body?: string;
    noOrigin?: boolean;
  } = {},
): Promise<Answer> {
  const url = new URL(platform.baseUrl);
  // As a browser does (a request without a browser's agent is a bot's: link-preview-bots.ts).
  const headers: Record<string, string> = { 'user-agent': desktopChrome, ...opts.headers };
  // As a browser does: a POST from the room's page carries the platform's origin.
  const method = opts.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD' && !opts.host && !opts.noOrigin && headers.origin === undefined) headers.origin = url.origin;
  if (opts.host) headers.host = opts.host;
  if (opts.jar?.size) headers.cookie = [...opts.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const setCookies = res.headers['set-cookie'] ?? [];
        for (const c of setCookies) {
          const [pair] = c.split(';');
          const at = pair.indexOf('=');
          opts.jar?.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const buf = Buffer.concat(chunks);
        const text = buf.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON the shell page carries for its script, checked against the contract's ShellData. */
export function shellData(html: string): ShellData {
  const m = /<script type="application\/json" id="room-data">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error('no room data in the page');
  return ShellData.parse(JSON.parse(m[1]));
}

/** The host of a project's static content origin (its slug and id: services/room/origins.ts). */
export const contentHost = (platform: Platform, project: { slug: string; id: string }) =>
  new URL(platform.deps.config.contentOrigin.replace('{slug}', staticLabelOf(project.slug, project.id))).host;

/**
 * A viewer entering through `url` (a link or preview address) with a fresh jar: answers the
 * who-are-you prompt, takes a grant for `appId` and spends it on the content origin. Returns the
 * jars for both origins and the session.
 */
export async function enterRoom(platform: Platform, url: string, opts: { appId?: string; name?: string; email?: string } = {}) {
  const jar: Jar = new Map();
  const page = await hit(platform, new URL(url).pathname, { jar });
  if (page.status !== 200) throw new Error(`entering answered ${page.status}`);
  const data = shellData(page.text);
  const base = `/room/${data.sessionId}`;
  await hit(platform, `${base}/hello`, {
    method: 'POST',
    jar,
    json: { name: opts.name ?? 'Ada Viewer', ...(opts.email ? { email: opts.email } : {}) },
  });
  const grant = await hit(platform, `${base}/grant`, { method: 'POST', jar, json: { app: opts.appId ?? data.apps[0].id } });
  const target = new URL(grant.json.url);
  const contentJar: Jar = new Map();
  const entered = await hit(platform, target.pathname + target.search, { host: target.host, jar: contentJar });
  return { jar, contentJar, data, base, page, grant, entered, host: target.host };
}

/** Says who the viewer is, as the room's prompt asks once per session (Chromium tests). */
export async function answerWhoAreYou(page: Page, name = 'Ada Prospect') {
  const dialog = page.locator('dialog#who');
  await dialog.waitFor({ state: 'visible' });
  await page.fill('#who-form input[name="name"]', name);
  await page.click('#who-form button[type="submit"]');
  await dialog.waitFor({ state: 'hidden' });
}

/** The frame of an app once it has passed through the grant to the content origin (Chromium tests). */
export async function appFrame(page: Page, appId: string): Promise<Frame> {
  const handle = await page.waitForSelector(`iframe[data-app="${appId}"][src]`);
  const frame = await handle.contentFrame();
  if (!frame) throw new Error(`no frame for ${appId}`);
  await frame.waitForURL((u) => u.hostname.endsWith('.rooms.localhost') && !u.pathname.startsWith('/__pp/'));
  await frame.waitForLoadState('load');
  return frame;
}

/** Clicks the app's frame at a fraction of its size, in comment mode. */
export async function pinAt(page: Page, appId: string, x: number, y: number) {
  await page.click('#comment-toggle');
  const layer = page.locator(`.frame:has(iframe[data-app="${appId}"]) .pin-layer`);
  await layer.waitFor();
  // Clicked through the locator, which waits until the layer has stopped moving (a tab just
  // switched still lays its frame out): a click at a box measured a frame early can miss it.
  const box = (await layer.boundingBox())!;
  await layer.click({ position: { x: box.width * x, y: box.height * y } });
  await page.locator('#comment-form').waitFor({ state: 'visible' });
}

/** Writes the comment the pin opened and sends it; waits for the room to say it arrived. */
export async function sendComment(page: Page, text: string) {
  await page.fill('#comment-form textarea[name="body"]', text);
  await page.click('#comment-form button[type="submit"]');
  await expect.poll(() => page.locator('.comment-outcome').textContent(), { timeout: 20_000 }).toMatch(/^Sent\b/);
}

/** A one-page shop (a blue heading over a yellow band) with a two-step story: a build whose picture is easy to tell apart. */
export const shopPage =
  '<!doctype html><html><head><title>Shop</title></head><body style="margin:0;background:#1c7ed6;color:#fff;font:24px sans-serif">' +
  '<h1 id="title" style="margin:0;padding:40px">The shop</h1><div style="height:200px;background:#fcc419"></div></body></html>';
export const shopRoom = {
  files: { 'index.html': shopPage },
  manifest: {
    kind: 'static',
    name: 'Shop',
    output: 'dist',
    apps: [{ id: 'web', name: 'Shop', path: '/', device: 'laptop' }],
    story: [
      { id: 'one', title: 'The shop', say: 'Here it is.', app: 'web' },
      { id: 'two', title: 'The end', say: 'That is all.', app: 'web' },
    ],
  },
};
