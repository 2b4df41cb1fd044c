import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { answerWhoAreYou, appFrame, contentHost, deployStaticRoom } from '../support/room.js';

// The room in a real browser: Debian's Chromium, headless, against a platform on loopback.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

describe('a viewer in the room', () => {
  it('sees both tabs and the app inside its frame from the content origin; revoked, the link is the same Not found; paused, the note', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url, link } = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Ada Prospect' },
    });
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(url);
    await answerWhoAreYou(page);
    const tabs = await page.locator('[role="tab"]').allTextContents();
    expect(tabs).toEqual(['Website', 'Admin']);
    // The default app (Admin, a phone) opens first, in its frame, from the project's own origin.
    expect(await page.getAttribute('[role="tab"][data-tab="admin"]', 'aria-selected')).toBe('true');
    const admin = await appFrame(page, 'admin');
    expect(new URL(admin.url()).host).toBe(contentHost(platform, project));
    expect(await admin.textContent('#admin')).toBe('Admin app');
    expect(await page.locator('#panel-admin .frame-phone').count()).toBe(1);

    await page.click('[role="tab"][data-tab="web"]');
    const web = await appFrame(page, 'web');
    expect(await web.textContent('#home')).toBe('Home app');
    // The build's own script ran there.
    await web.waitForFunction(() => document.body.dataset.ready === 'yes');
    expect(await page.locator('#panel-web .frame-laptop').count()).toBe(1);

    // Revoked: the very same page as a key that never existed.
    await person.client.call('revokeLink', { params: { linkId: link.id } });
    const revoked = await page.goto(url);
    const revokedBody = await revoked!.body();
    const madeUp = await page.goto(new URL('/r/pp_link_never_made', url).toString());
    expect(revoked!.status()).toBe(404);
    expect(madeUp!.status()).toBe(404);
    expect(revokedBody.equals(await madeUp!.body())).toBe(true);
    expect(await page.textContent('h1')).toBe('Not found');

    // Paused by the owner: a working link shows who paused and the note.
    const { url: second } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bo' } });
    await person.client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'Shipping v2, back Monday' } });
    await page.goto(second);
    expect(await page.textContent('h1')).toBe('Paused for now');
    expect(await page.textContent('main')).toContain('Shipping v2, back Monday');
    await context.close();
  });

  it('shows room pages as their own tabs, rendered and sanitised', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    await person.client.call('addPage', {
      params: { projectId: project.id },
      body: {
        title: 'Pricing',
        kind: 'markdown',
        content: '# Plans\n\n**Pro** is $39.\n\n<script>document.title="owned"</script><img src=x onerror="document.title=\'owned\'">',
      },
    });
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Cy' } });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await answerWhoAreYou(page);
    expect(await page.locator('[role="tab"]').allTextContents()).toEqual(['Website', 'Admin', 'Pricing']);
    // The page comes from its own address once its tab opens, never inlined in the shell.
    expect(await page.locator('.page iframe').getAttribute('src')).toBeNull();
    expect(await page.content()).not.toContain('Plans');
    await page.click('[role="tab"][data-kind="page"]');
    const frame = await (await page.waitForSelector('.page iframe[src]')).contentFrame();
    expect(await frame!.textContent('h1')).toBe('Plans');
    expect(new URL(frame!.url()).pathname).toMatch(/^\/room\/[\w-]+\/pages\/[\w-]+$/);
    expect(await frame!.innerHTML('body')).not.toMatch(/script|onerror/);
    expect(await page.title()).not.toBe('owned');
    await context.close();
  });
});

/** The token of the newest sign-in link mailed to `email` (the outbox, without SMTP). */
async function emailedToken(email: string): Promise<string> {
  const outbox = join(platform.deps.config.DATA_DIR, 'outbox');
  const files = (await readdir(outbox)).filter((f) => f.includes(email.replace(/[^a-z0-9@.-]/gi, '_'))).sort();
  return /token=([\w-]+)/.exec(await readFile(join(outbox, files.at(-1)!), 'utf8'))![1];
}

describe('a build cannot act as the builder', () => {
  it("cannot read the platform origin's cookies or call the API with the builder's session", async () => {
    const person = await platform.person({ plan: 'solo' });
    const api = platform.baseUrl;
    // The build tries everything a script can: its own cookies, its parent's, and the API with credentials.
    const probe = `
      const out = {};
      out.cookie = document.cookie;
      try { out.parentCookie = parent.document.cookie; } catch (e) { out.parentCookie = 'blocked'; }
      const tryFetch = async (path, init) => {
        try { const r = await fetch(${JSON.stringify(api)} + path, { credentials: 'include', ...init }); return 'status ' + r.status + ' ' + (await r.text()).slice(0, 200); }
        catch (e) { return 'blocked'; }
      };
      out.me = await tryFetch('/api/projects');
      out.create = await tryFetch('/api/projects', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ slug: 'stolen-${Date.now()}', name: 'Stolen' }) });
      document.body.dataset.probe = JSON.stringify(out);`;
    const { project } = await deployStaticRoom(platform, person, {
      files: { 'index.html': '<!doctype html><h1>probe</h1><script type="module" src="/probe.js"></script>', 'probe.js': probe },
      manifest: { kind: 'static', name: 'Probe', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }] },
    });
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Builder' } });

    const context = await browser.newContext();
    const page = await context.newPage();
    // The builder signs in to the platform in this very browser, through the emailed link: the
    // session cookie is `__Host-` and Secure, and Chromium keeps it on http://127.0.0.1.
    // The link is asked for from this browser too: it is bound to the browser's nonce cookie.
    await page.goto(`${api}/api/manifest.schema.json`);
    const asked = await page.evaluate(
      async (email) =>
        (
          await fetch('/api/auth/email', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email }),
          })
        ).status,
      person.email,
    );
    expect(asked).toBe(200);
    const signInToken = await emailedToken(person.email);
    const verified = await page.evaluate(
      async (token) =>
        (
          await fetch('/api/auth/email/verify', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token }),
          })
        ).status,
      signInToken,
    );
    expect(verified).toBe(200);
    expect((await context.cookies(api)).map((c) => [c.name, c.secure])).toContainEqual(['__Host-pp_session', true]);
    const me = await page.goto(`${api}/api/projects`);
    expect(me!.status()).toBe(200);

    await page.goto(url);
    await answerWhoAreYou(page);
    const frame = await appFrame(page, 'web');
    await frame.waitForFunction(() => document.body.dataset.probe !== undefined);
    const probeOut = JSON.parse((await frame.evaluate(() => document.body.dataset.probe))!);
    expect(probeOut.cookie).toBe('');
    expect(probeOut.parentCookie).toBe('blocked');
    // Cross-origin reads are blocked by CORS; had anything reached the API it went without the cookie.
    expect(probeOut.me).toBe('blocked');
    expect(probeOut.create).toBe('blocked');
    const projects = await person.client.call('listProjects', {});
    expect(projects.map((p) => p.name)).not.toContain('Stolen');
    await context.close();
  });
});
