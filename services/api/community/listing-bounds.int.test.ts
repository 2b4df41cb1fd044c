import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { deployStaticRoom, hit } from '../../../test/support/room.js';
import { pagePoolLimits } from './page-check-pool.js';

// Issue 28: the listing checks bound the work a request causes (H3: pages parsed once per build,
// in a worker thread, within caps, 503 when the pool is full; a listing counted before its
// checks), they cover what a listed room shows besides its card (M5), and they read look-alike
// brand names by the Unicode confusables skeleton.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/** A static build of `count` HTML pages of about `kb` KB of text each. */
function manyPages(count: number, kb: number) {
  const para = '<p>Every deal in one place, followed up from one board by the whole team.</p>\n';
  const body = para.repeat(Math.ceil((kb * 1024) / para.length));
  const files: Record<string, string> = { 'index.html': '<!doctype html><title>Home</title><h1>Home</h1>' };
  for (let i = 0; i < count; i++) files[`docs/p${i}.html`] = `<!doctype html><title>Docs ${i}</title>${body}`;
  return files;
}

async function cardedProject(owner: Person, files?: Record<string, string>) {
  const { project, build } = await deployStaticRoom(
    platform,
    owner,
    files
      ? {
          files,
          manifest: { kind: 'static', name: 'Docs', output: 'dist', apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }] },
        }
      : {},
  );
  const params = { projectId: project.id };
  await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' } });
  return { project, build, params };
}

describe('listing checks off the event loop (H3)', () => {
  it('many rehearsals of a room with large pages at once: the api keeps answering, past the pool some are 503 with Retry-After, and the build is checked once', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project, build } = await cardedProject(owner, manyPages(16, 128));
    // Room pages are the builder's own words, checked at each rehearsal (a build's pages only once):
    // sixteen of 256 KB fill a rehearsal's share of the worker thread.
    const text = 'Every deal in one place, followed up from one board by the whole team.\n'.repeat(3600);
    for (let i = 0; i < 16; i++)
      await owner.client.call('addPage', {
        params: { projectId: project.id },
        body: { title: `Guide ${i}`, kind: 'markdown', content: text },
      });

    const wanted = pagePoolLimits.threads + pagePoolLimits.queued + 3;
    let settled = 0;
    const rehearsals = Array.from({ length: wanted }, () =>
      platform.fetch(`/api/projects/${project.id}/card/listing`, { token: owner.token }).finally(() => {
        settled++;
      }),
    );
    // The api answers while the checks run (before the last of them is done).
    const health = await platform.fetch('/healthz');
    expect(health.status).toBe(200);
    expect(settled).toBeLessThan(wanted);

    const answers = await Promise.all(rehearsals);
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0].body).toMatchObject({ error: 'unavailable', reason: 'unavailable' });
    expect(busy[0].headers.get('retry-after')).toBe(String(pagePoolLimits.retryAfterSeconds));
    const done = answers.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThan(0);
    expect(done[0].body).toMatchObject({ outcome: 'listed', findings: [] });

    // The build's findings are stored once; later listings and rehearsals read them.
    const stored = await platform.deps.sql<{ pagesRead: number; bytesRead: number }[]>`
      select pages_read, bytes_read::float8 as bytes_read from build_page_checks where build_id = ${build.id}`;
    expect(stored).toEqual([{ pagesRead: 17, bytesRead: expect.any(Number) }]);
    expect(stored[0].bytesRead).toBeLessThanOrEqual(4 * 1024 * 1024);
  }, 180_000);

  it('reads only the first part of each page and of the build, and blocks on what it left unread (L7)', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { params } = await cardedProject(owner, manyPages(24, 300));
    const check = await owner.client.call('rehearseListing', { params });
    expect(check.outcome).toBe('blocked');
    const unread = check.findings.filter((w) => (w as { reason: string }).reason === 'unread');
    expect(unread.map((w) => (w as { detail: string }).detail)).toEqual([
      expect.stringContaining('read only in part'),
      expect.stringContaining('not read'),
    ]);
    expect(check.warnings.filter((w) => (w as { reason: string }).reason === 'unread')).toEqual([]);
  }, 120_000);

  it('does not list a build whose pages were not all read: a form after 256 KB of padding, a page behind 200 others (L7)', async () => {
    const padding = `<p>${'Every deal in one place, followed up from one board by the whole team. '.repeat(4000)}</p>`;
    const form = '<form action="https://collect.example.net/"><input type="password" name="password"></form>';
    const padded = { 'index.html': `<!doctype html><title>Home</title>${padding}${form}` };
    const deep: Record<string, string> = { 'index.html': '<!doctype html><title>Home</title><h1>Home</h1>' };
    for (let i = 0; i < 200; i++) deep[`a${i}.html`] = `<!doctype html><title>${i}</title><p>Page ${i}</p>`;
    deep['x/y/login.html'] = `<!doctype html><title>Sign in</title>${form}`;
    for (const [files, detail] of [
      [padded, 'read only in part'],
      [deep, 'not read'],
    ] as const) {
      const owner = await platform.person({ plan: 'solo' });
      const { params } = await cardedProject(owner, files);
      const card = await owner.client.call('listProject', { params });
      expect(card.status).toBe('blocked');
      expect(card.blocked).toEqual([expect.objectContaining({ part: 'pages', reason: 'unread', detail: expect.stringContaining(detail) })]);
      // Asked again, the stored findings of the build still block.
      expect((await owner.client.call('rehearseListing', { params })).outcome).toBe('blocked');
    }
  }, 180_000);

  it("counts a listing request before its checks run: past the day's three, nothing is checked", async () => {
    const owner = await platform.person({ plan: 'solo' });
    const first = await cardedProject(owner);
    for (let i = 0; i < 3; i++) {
      expect((await owner.client.call('listProject', { params: first.params })).status).toBe('listed');
      await owner.client.call('unlistProject', { params: first.params });
    }
    const second = await cardedProject(owner, manyPages(8, 64));
    const over = await refusal(owner.client.call('listProject', { params: second.params }));
    expect(over).toMatchObject({ status: 429, body: { reason: 'rate' } });
    const checked = await platform.deps.sql`select 1 from build_page_checks where build_id = ${second.build.id}`;
    expect(checked.length).toBe(0);
  });
});

describe('a listed project changes (M5)', () => {
  const phishing = 'Verify your account to keep access';

  async function listed() {
    const owner = await platform.person({ plan: 'solo' });
    const p = await cardedProject(owner);
    expect((await owner.client.call('listProject', { params: p.params })).status).toBe('listed');
    expect((await hit(platform, `/p/${p.project.slug}`, { jar: new Map() })).status).toBe(200);
    return { owner, ...p };
  }

  const shows = async (slug: string) => (await hit(platform, `/p/${slug}`, { jar: new Map() })).status;

  const changes: [string, (o: Person, projectId: string, words: string) => Promise<unknown>][] = [
    ['its name', (o, projectId, words) => o.client.call('renameProject', { params: { projectId }, body: { name: words } })],
    [
      'a room page',
      (o, projectId, words) =>
        o.client.call('addPage', {
          params: { projectId },
          body: { title: 'Help', kind: 'markdown', content: `# Help\n\n[${words}](https://evil.example/)` },
        }),
    ],
    ['its brand name', (o, _projectId, words) => o.client.call('setBrand', { body: { name: words.slice(0, 40), accent: null } })],
    [
      'the credited bio',
      async (o, projectId, words) => {
        await o.client.call('setProfile', { body: { handle: `h-${crypto.randomUUID().slice(0, 8)}`, bio: 'I make CRMs.' } });
        await o.client.call('saveCard', {
          params: { projectId },
          body: { title: 'Acme CRM', line: 'Follow up every deal from one board.', credit: true },
        });
        const [me] = await platform.deps.sql<
          { handle: string }[]
        >`select handle from people where id = (select credit_person_id from cards where project_id = ${projectId})`;
        return o.client.call('setProfile', { body: { handle: me.handle, bio: words } });
      },
    ],
  ];

  it.each(changes)('a clean change of %s keeps it listed', async (_what, change) => {
    const { owner, project, params } = await listed();
    await change(owner, project.id, 'Follow up every deal from one board');
    expect((await owner.client.call('getCard', { params })).status).toBe('listed');
    expect(await shows(project.slug)).toBe(200);
  });

  it.each(changes)('a phishing change of %s takes it off /p/<slug>, blocked with the part and a notice', async (_what, change) => {
    const { owner, project, params } = await listed();
    await change(owner, project.id, phishing);
    const card = await owner.client.call('getCard', { params });
    expect(card.status).toBe('blocked');
    expect(card.blocked[0]).toMatchObject({ reason: 'phishing' });
    expect(await shows(project.slug)).toBe(404);
    const notices = await owner.client.call('listNotices', {});
    expect(JSON.stringify(notices)).toContain('listing.blocked');
  });

  it('a listing checks the name, room pages, brand name and bio it would show', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project, params } = await cardedProject(owner);
    await owner.client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'Sign in', kind: 'html', content: '<form><input type="password"></form>' },
    });
    await owner.client.call('renameProject', { params: { projectId: project.id }, body: { name: 'PayPaI wallet' } });
    const check = await owner.client.call('rehearseListing', { params });
    expect(check.outcome).toBe('blocked');
    expect(check.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ part: 'name', reason: 'impersonation' }),
        expect.objectContaining({ part: 'pages', reason: 'credentials' }),
      ]),
    );
  });
});

describe('look-alike names (issue 28, item 4)', () => {
  const spellings: [string, string][] = [
    ['a capital I for an l', 'PayPaI checkout'],
    ['a Cyrillic а', 'Pаypal wallet'],
    ['a Greek ο', 'Gοogle Docs clone'],
    ['digits for letters', 'Micr0soft Teams admin'],
    ['a zero-width joiner inside', 'Pay\u200dPal checkout'],
    ['mixed scripts', 'Nеtflіx party'],
  ];

  it('each spelling blocks a listing for impersonation, and an honest name lists', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { params } = await cardedProject(owner);
    for (const [what, title] of spellings) {
      await owner.client.call('saveCard', { params, body: { title, line: 'A demo of our product.' } });
      const check = await owner.client.call('rehearseListing', { params });
      expect({ what, outcome: check.outcome, reason: (check.findings[0] as { reason?: string } | undefined)?.reason }).toEqual({
        what,
        outcome: 'blocked',
        reason: 'impersonation',
      });
    }
    await owner.client.call('saveCard', { params, body: { title: 'Modern invoicing for illustrators', line: 'A demo of our product.' } });
    expect((await owner.client.call('rehearseListing', { params })).outcome).toBe('listed');
  });
});
