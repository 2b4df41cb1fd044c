import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, hit, shellData, type Jar } from '../../test/support/room.js';

// Room pages at their own addresses (room-page.routes.ts): the shell names them and carries none
// of their bodies; each page answers its stored HTML to its own session only.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

/** A live room with `pages` added, and a viewer inside it (a fresh jar). */
async function roomWithPages(pages: { title: string; kind: 'markdown' | 'html'; content: string }[]) {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const added = [];
  for (const body of pages) added.push(await person.client.call('addPage', { params: { projectId: project.id }, body }));
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Pat Prospect' } });
  const jar: Jar = new Map();
  const shell = await hit(platform, new URL(url).pathname, { jar });
  expect(shell.status).toBe(200);
  return { person, project, pages: added, jar, shell, sessionId: shellData(shell.text).sessionId as string };
}

const marker = (i: number) => `pagebody-marker-${i}-`;

describe('the shell of a room with pages', () => {
  it('holds 30 pages as tabs and frames without any page body, under 100 KB', async () => {
    // 30 pages of ~160 KB of markdown: 4.8 MB of pages, all within the room's total.
    const pages = Array.from({ length: 30 }, (_, i) => ({
      title: `${'A long page title that says what is in the page '.slice(0, 60)} ${i}`.slice(0, 80),
      kind: 'markdown' as const,
      content: `# Page ${i}\n\n${`${marker(i)} **lorem** ipsum [link](https://example.com/${i}) dolor sit amet.\n\n`.repeat(1800)}`.slice(
        0,
        160_000,
      ),
    }));
    const { shell, sessionId } = await roomWithPages(pages);
    expect(shell.body.length).toBeLessThan(100 * 1024);
    expect(shell.text).not.toContain('pagebody-marker');
    expect(shell.text).not.toContain('srcdoc');
    const data = shellData(shell.text);
    expect(data.pages).toHaveLength(30);
    for (const p of data.pages as { id: string }[]) expect(shell.text).toContain(`data-src="/room/${sessionId}/pages/${p.id}"`);
    // The shell lets its frames load its own pages' addresses, and no other address of this origin.
    expect(shell.headers['content-security-policy']).toContain(` ${platform.baseUrl}/room/${sessionId}/pages/`);
  });
});

describe('a page at its own address', () => {
  it("answers the stored HTML in the room's look, with an ETag, 304 when it has not changed, and a sandboxing CSP", async () => {
    const { pages, jar, sessionId, person, project } = await roomWithPages([
      { title: 'Pricing', kind: 'markdown', content: '# Plans\n\n**Pro** is $39.<script>alert(1)</script>' },
    ]);
    const address = `/room/${sessionId}/pages/${pages[0].id}`;
    const first = await hit(platform, address, { jar });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/(^|; )sandbox( |;|$)/);
    expect(csp).toContain("frame-ancestors 'self'");
    const [stored] = await platform.deps.sql<{ html: string }[]>`select html from room_pages where id = ${pages[0].id}`;
    expect(first.text).toContain(`<body>${stored.html}</body>`);
    expect(first.text).toContain('<h1>Plans</h1>');
    expect(first.text).not.toContain('<script');
    expect(first.text).toContain('id="room-look"');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]{43}"$/);

    const again = await hit(platform, address, { jar, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    // A new content is a new tag: the browser's copy is not kept.
    await person.client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'Pricing', kind: 'markdown', content: '# Plans\n\n**Pro** is $29.' },
    });
    const changed = await hit(platform, address, { jar, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('$29');
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('renders a page stored before pages kept their HTML on its first request, and keeps what it made', async () => {
    const { pages, jar, sessionId } = await roomWithPages([
      { title: 'Old', kind: 'markdown', content: '# Old page\n\n<img src=x onerror="alert(1)">' },
    ]);
    await platform.deps.sql`update room_pages set html = null, html_hash = null where id = ${pages[0].id}`;
    const page = await hit(platform, `/room/${sessionId}/pages/${pages[0].id}`, { jar });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Old page</h1>');
    expect(page.text).not.toContain('onerror');
    const [row] = await platform.deps.sql<
      { html: string | null; htmlHash: string | null }[]
    >`select html, html_hash from room_pages where id = ${pages[0].id}`;
    expect(row.html).toContain('<h1>Old page</h1>');
    expect(row.htmlHash).toEqual(expect.any(String));
    const again = await hit(platform, `/room/${sessionId}/pages/${pages[0].id}`, {
      jar,
      headers: { 'if-none-match': String(page.headers.etag) },
    });
    expect(again.status).toBe(304);
  });

  it("is Not found to another room's session, without the cookie, for another project's page, and once the link is revoked", async () => {
    const mine = await roomWithPages([{ title: 'Secret plans', kind: 'markdown', content: 'top secret roadmap' }]);
    const theirs = await roomWithPages([{ title: 'Theirs', kind: 'markdown', content: 'their page' }]);
    const myPage = `/room/${mine.sessionId}/pages/${mine.pages[0].id}`;
    const attempts = [
      // Another room's viewer asks for my page: through their own session, and through mine.
      hit(platform, `/room/${theirs.sessionId}/pages/${mine.pages[0].id}`, { jar: theirs.jar }),
      hit(platform, myPage, { jar: theirs.jar }),
      // No cookie at all.
      hit(platform, myPage),
      // My session asking for their page.
      hit(platform, `/room/${mine.sessionId}/pages/${theirs.pages[0].id}`, { jar: mine.jar }),
      hit(platform, `/room/${mine.sessionId}/pages/not-a-page`, { jar: mine.jar }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(404);
      expect(answer.text).not.toContain('secret');
    }
    expect((await hit(platform, myPage, { jar: mine.jar })).status).toBe(200);
    // The link revoked: its sessions stop, their pages with them.
    const [link] = await mine.person.client.call('listLinks', { params: { projectId: mine.project.id } });
    await mine.person.client.call('revokeLink', { params: { linkId: link.id } });
    expect((await hit(platform, myPage, { jar: mine.jar })).status).toBe(404);
  });
});
