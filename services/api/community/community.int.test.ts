import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { deployStaticRoom, hit, shellData } from '../../../test/support/room.js';
import { review } from '../../ops/ops-review.js';
import { tgz } from '../../../test/support/archives.js';
import { opsProjectCommands } from '../../ops/ops-projects.js';

// The community (issue 18): cards and their transitions (spec 3), the listing checks on words and
// pages, covers, listings and covers for anyone, appeals and the operator's review, reports,
// notices, and every limit (429s counted in Postgres, so across api processes).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

const png = (width = 64, height = 32) =>
  sharp({ create: { width, height, channels: 3, background: '#1c7ed6' } })
    .png()
    .toBuffer();

/** A live static room with a card saved. */
async function projectWithCard(person?: Person, files?: Record<string, string | Buffer>) {
  const owner = person ?? (await platform.person({ plan: 'solo' }));
  const { project, build } = await deployStaticRoom(platform, owner, files ? { files } : {});
  const params = { projectId: project.id };
  await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' } });
  return { owner, project, build, params };
}

const listings = () => platform.fetch('/api/community/listings');

/** Another static build of the project, made live. */
async function newLiveBuild(owner: Person, projectId: string) {
  const bytes = await tgz({ 'index.html': '<!doctype html><title>v2</title><h1>Second</h1>' });
  const { uploadId, putUrl } = await owner.client.call('startUpload', {
    params: { projectId },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  expect(
    (await platform.fetch(putUrl, { method: 'PUT', token: owner.token, body: bytes, headers: { 'content-type': 'application/gzip' } }))
      .status,
  ).toBe(204);
  const manifest = {
    kind: 'static',
    name: 'v2',
    output: 'dist',
    apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }],
  } as const;
  const build = await owner.client.call('createBuild', { params: { projectId }, body: { uploadId, manifest: manifest as never } });
  await owner.client.call('makeLive', { params: { projectId, buildId: build.id } });
}

describe('cards and listing', () => {
  it('an unsaved card is an empty draft; saving keeps the words; listing needs a card and a live build', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const project = await owner.client.call('createProject', { body: { slug: `c-${crypto.randomUUID().slice(0, 8)}`, name: 'No build' } });
    const params = { projectId: project.id };
    expect(await owner.client.call('getCard', { params })).toMatchObject({
      status: 'draft',
      title: '',
      updatedAt: null,
      publicUrl: `${platform.baseUrl}/p/${project.slug}`,
    });
    expect(await refusal(owner.client.call('listProject', { params }))).toMatchObject({ status: 422, body: { reason: 'unfinished' } });
    const saved = await owner.client.call('saveCard', { params, body: { title: 'Demo', line: 'A line' } });
    expect(saved).toMatchObject({ status: 'draft', title: 'Demo', line: 'A line' });
    expect((await refusal(owner.client.call('listProject', { params }))).body).toMatchObject({
      reason: 'unfinished',
      detail: expect.stringContaining('live'),
    });
    const long = await platform.fetch(`/api/projects/${project.id}/card`, {
      method: 'POST',
      token: owner.token,
      json: { title: 'x'.repeat(61), line: 'y' },
    });
    expect(long.status).toBe(400);
    const blank = await platform.fetch(`/api/projects/${project.id}/card`, {
      method: 'POST',
      token: owner.token,
      json: { title: '   ', line: 'y' },
    });
    expect([blank.status, blank.body.issues]).toEqual([400, [{ path: 'title', message: expect.any(String) }]]);
    expect((await owner.client.call('getCard', { params })).title).toBe('Demo');
    // A right-to-left override would show "PayPal login" from letters no check reads as a brand.
    const flipped = await owner.client.call('saveCard', { params, body: { title: '\u202Enigol laPyaP', line: 'Pay\u200BPal' } });
    expect([flipped.title, flipped.line]).toEqual(['nigol laPyaP', 'PayPal']);
  });

  it('lists a card that passes, shows it to anyone (CORS for the site only), and unlists it', async () => {
    const { owner, project, params } = await projectWithCard();
    const put = await platform.fetch(`/api/projects/${project.id}/card/cover`, { method: 'PUT', token: owner.token, body: await png() });
    expect(put.status).toBe(200);
    expect(put.body.cover).toMatchObject({ type: 'image/png' });
    const listed = await owner.client.call('listProject', { params });
    expect(listed).toMatchObject({ status: 'listed', blocked: [], hidden: false, coverPending: false });
    const open = await fetch(`${platform.baseUrl}/api/community/listings`, { headers: { origin: platform.baseUrl } });
    expect(open.headers.get('access-control-allow-origin')).toBe(platform.baseUrl);
    expect(open.headers.get('cache-control')).toBe('public, max-age=60');
    const mine = (await open.json()).find((l: { slug: string }) => l.slug === project.slug);
    expect(mine).toEqual({
      slug: project.slug,
      title: 'Acme CRM',
      line: 'Follow up every deal from one board.',
      url: `${platform.baseUrl}/p/${project.slug}`,
      cover: true,
      listedAt: expect.any(String),
      credit: null,
    });
    const elsewhere = await fetch(`${platform.baseUrl}/api/community/listings`, { headers: { origin: 'https://evil.example' } });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    const cover = await fetch(`${platform.baseUrl}/api/community/projects/${project.slug}/cover`);
    expect([cover.status, cover.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect((await sharp(Buffer.from(await cover.arrayBuffer())).metadata()).width).toBe(64);

    expect((await owner.client.call('unlistProject', { params })).status).toBe('draft');
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).not.toContain(project.slug);
    expect((await fetch(`${platform.baseUrl}/api/community/projects/${project.slug}/cover`)).status).toBe(404);
  });

  it('blocks a card whose words fail, naming the part and reason, with a notice; rehearsal and scan write nothing', async () => {
    const { owner, params } = await projectWithCard();
    await owner.client.call('saveCard', { params, body: { title: 'Paypa1 login', line: 'Verify your account to keep access.' } });
    const rehearsed = await owner.client.call('rehearseListing', { params });
    expect(rehearsed.outcome).toBe('blocked');
    expect(rehearsed.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ part: 'title', reason: 'impersonation' }),
        expect.objectContaining({ part: 'line', reason: 'phishing' }),
      ]),
    );
    expect(
      (await owner.client.call('scanCard', { params, body: { title: 'Export to Google Sheets', line: 'Fine' } })).warnings,
    ).toHaveLength(1);
    expect((await owner.client.call('getCard', { params })).status).toBe('draft');
    expect(await owner.client.call('listNotices')).toEqual([]);

    const blocked = await owner.client.call('listProject', { params });
    expect(blocked).toMatchObject({ status: 'blocked', appealable: true });
    expect(blocked.blocked).toEqual(expect.arrayContaining([expect.objectContaining({ part: 'title', reason: 'impersonation' })]));
    const [notice] = await owner.client.call('listNotices');
    expect(notice).toMatchObject({ kind: 'listing.blocked', readAt: null, body: expect.stringContaining('title') });
    expect(await owner.client.call('readNotices', { body: {} })).toEqual({ read: 1 });
    expect(await owner.client.call('readNotices', { body: { ids: [notice.id, 'not-an-id'] } })).toEqual({ read: 0 });
  });

  it('blocks a static build whose page asks for a password, and lists one that only mentions one', async () => {
    const { owner, params } = await projectWithCard(undefined, {
      'index.html': '<!doctype html><title>Acme</title><p>Reset your password from Settings.</p>',
      'login/index.html':
        '<!doctype html><title>Sign in</title><form method="post"><input name="u"><input type="password" name="p"></form>',
    });
    const card = await owner.client.call('listProject', { params });
    expect(card.status).toBe('blocked');
    expect(card.blocked).toEqual([
      expect.objectContaining({ part: 'pages', reason: 'credentials', detail: expect.stringContaining('/login/index.html') }),
    ]);
    const fine = await projectWithCard(undefined, {
      'index.html': '<!doctype html><title>Acme</title><p>Reset your password from Settings.</p>',
    });
    expect((await fine.owner.client.call('listProject', { params: fine.params })).status).toBe('listed');
  });

  it('a listed card whose new words fail leaves the community; 10 edits a day of a listed card, then 429', async () => {
    const { owner, project, params } = await projectWithCard(await platform.person({ plan: 'team' }));
    await owner.client.call('listProject', { params });
    for (let i = 0; i < 9; i++)
      await owner.client.call('saveCard', { params, body: { title: `Acme CRM ${i}`, line: 'Follow up every deal.' } });
    const bad = await owner.client.call('saveCard', { params, body: { title: 'G00gle Workspace', line: 'Follow up every deal.' } });
    expect(bad.status).toBe('blocked');
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).not.toContain(project.slug);
    await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal.' } }); // not listed: not counted
    await owner.client.call('listProject', { params });
    const tooMany = await platform.fetch(`/api/projects/${project.id}/card`, {
      method: 'POST',
      token: owner.token,
      json: { title: 'Once more', line: 'x' },
    });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toMatchObject({ reason: 'rate', retryAfter: expect.any(Number) });
    expect(tooMany.headers.get('retry-after')).toBe(String(tooMany.body.retryAfter));
    expect((await owner.client.call('getCard', { params })).title).toBe('Acme CRM');
  });

  it('402 containers on Free when the live build is a container', async () => {
    const { owner, build, params } = await projectWithCard(await platform.person());
    // A container build cannot be deployed on Free at all; one made on a paid plan stays live after.
    await platform.deps.sql`update builds set kind = 'container' where id = ${build.id}`;
    expect(await refusal(owner.client.call('listProject', { params }))).toMatchObject({
      status: 402,
      body: { reason: 'limit', limit: 'containers', plan: 'free' },
    });
    expect((await owner.client.call('getCard', { params })).status).toBe('draft');
  });

  it('at most 3 listing requests a day per workspace, counted across two api processes', async () => {
    const owner = await platform.person({ plan: 'team' });
    const second = await startPlatform();
    try {
      const projects = [];
      for (let i = 0; i < 4; i++) projects.push((await projectWithCard(owner)).params);
      await owner.client.call('listProject', { params: projects[0] });
      await owner.client.call('unlistProject', { params: projects[0] });
      const other = (await import('@demo-rooms/contract')).createClient({ baseUrl: second.baseUrl, token: owner.token });
      await other.call('listProject', { params: projects[1] });
      await owner.client.call('listProject', { params: projects[2] });
      expect(await refusal(other.call('listProject', { params: projects[3] }))).toMatchObject({ status: 429, body: { reason: 'rate' } });
      expect((await owner.client.call('getCard', { params: projects[3] })).status).toBe('draft');
    } finally {
      await second.close();
    }
  });
});

describe('credit', () => {
  it('names the builder only when they chose it: on the listing and on their public profile', async () => {
    const { owner, project, params } = await projectWithCard();
    await owner.client.call('listProject', { params });
    const uncredited = (await listings()).body.find((l: { slug: string }) => l.slug === project.slug);
    expect(uncredited.credit).toBeNull();
    const noHandle = await refusal(
      owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Every deal.', credit: true } }),
    );
    expect(noHandle).toMatchObject({ status: 422, body: { reason: 'unfinished' } });
    const handle = `maker-${crypto.randomUUID().slice(0, 8)}`;
    await owner.client.call('setProfile', { body: { handle, bio: 'I make CRMs.' } });
    expect((await platform.fetch(`/api/community/people/${handle}`)).body.projects).toEqual([]);
    await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Every deal.', credit: true } });
    expect((await listings()).body.find((l: { slug: string }) => l.slug === project.slug).credit).toBe(handle);
    const profile = (await platform.fetch(`/api/community/people/${handle}`)).body;
    expect(profile.projects).toEqual([
      { slug: project.slug, title: 'Acme CRM', line: 'Every deal.', url: `${platform.baseUrl}/p/${project.slug}`, cover: false },
    ]);
    await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Every deal.' } }); // absent: kept
    expect((await listings()).body.find((l: { slug: string }) => l.slug === project.slug).credit).toBe(handle);
    await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Every deal.', credit: false } });
    expect((await platform.fetch(`/api/community/people/${handle}`)).body.projects).toEqual([]);
  });

  it("shows each project's standing in the arrangement", async () => {
    const { owner, project, params } = await projectWithCard();
    const standing = async () =>
      (await owner.client.call('getArrangement')).projects.find((p: Record<string, unknown>) => p.id === project.id)?.standing;
    expect(await standing()).toBe('unlisted');
    await owner.client.call('listProject', { params });
    expect(await standing()).toBe('listed');
  });
});

describe('the public room', () => {
  it('opens for anyone at /p/<slug> without a name; a community pass names the signed-in person; a new live build hides it', async () => {
    const { owner, project, params } = await projectWithCard();
    expect((await hit(platform, `/p/${project.slug}`)).status).toBe(404);
    expect(await refusal(owner.client.call('communityPass', { body: { slug: project.slug } }))).toMatchObject({ status: 404 });
    await owner.client.call('listProject', { params });

    const anyone = await hit(platform, `/p/${project.slug}`, { jar: new Map() });
    expect(anyone.status).toBe(200);
    expect(shellData(anyone.text).ask.name).toBe(false);

    const visitor = await platform.person({ name: 'Vera Visitor' });
    const { url } = await visitor.client.call('communityPass', { body: { slug: project.slug } });
    const target = new URL(url);
    expect(target.pathname).toBe(`/p/${project.slug}`);
    const named = await hit(platform, target.pathname + target.search, { jar: new Map() });
    const [session] = await platform.deps.sql<
      { viewerName: string | null }[]
    >`select viewer_name from room_sessions where id = ${shellData(named.text).sessionId}`;
    expect(session.viewerName).toBe('Vera Visitor');
    // Spent: the same address is the public room again, for no one in particular.
    const again = await hit(platform, target.pathname + target.search, { jar: new Map() });
    const [unnamed] = await platform.deps.sql<
      { viewerName: string | null }[]
    >`select viewer_name from room_sessions where id = ${shellData(again.text).sessionId}`;
    expect(unnamed.viewerName).toBeNull();

    // Paused by the platform while the workspace holds more projects than its plan allows: hidden, and back after.
    await platform.deps.sql`update projects set over_limit_at = now() where id = ${project.id}`;
    expect((await owner.client.call('getCard', { params })).hidden).toBe(true);
    expect((await hit(platform, `/p/${project.slug}`)).status).toBe(404);
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).not.toContain(project.slug);
    await platform.deps.sql`update projects set over_limit_at = null where id = ${project.id}`;
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).toContain(project.slug);

    // A build other than the one listed goes live: hidden until it is listed again (and checked).
    await newLiveBuild(owner, project.id);
    expect((await owner.client.call('getCard', { params })).hidden).toBe(true);
    expect((await hit(platform, `/p/${project.slug}`)).status).toBe(404);
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).not.toContain(project.slug);
  });
});

describe('appeals, takedowns and the review', () => {
  it('an appeal of a blocked card: 409 while open, denied with a notice, upheld lists exactly what was appealed', async () => {
    const { owner, project, params } = await projectWithCard();
    await owner.client.call('saveCard', { params, body: { title: 'Paypa1 tools', line: 'Invoices for freelancers.' } });
    await owner.client.call('listProject', { params });
    expect((await refusal(owner.client.call('appealListing', { params, body: { message: 'short' } }))).status).toBe(400);
    const appealed = await owner.client.call('appealListing', {
      params,
      body: { message: 'Paypa1 is our product name, registered since 2019.' },
    });
    expect(appealed).toMatchObject({ appealable: false, appeal: { status: 'open' } });
    expect(
      await refusal(owner.client.call('appealListing', { params, body: { message: 'Please look again at this one.' } })),
    ).toMatchObject({ status: 409, body: { reason: 'taken' } });
    const appealId = appealed.appeal!.id as string;
    expect(await review(platform.deps.sql, platform.deps.storage, ['list'])).toContain(appealId);
    await owner.client.call('saveCard', { params, body: { title: 'Something else', line: 'Changed meanwhile.' } });
    await review(platform.deps.sql, platform.deps.storage, ['uphold', appealId, 'trademark shown']);
    const card = await owner.client.call('getCard', { params });
    expect(card).toMatchObject({
      status: 'listed',
      title: 'Paypa1 tools',
      line: 'Invoices for freelancers.',
      appeal: { status: 'upheld', note: 'trademark shown' },
    });
    expect((await listings()).body.map((l: { slug: string }) => l.slug)).toContain(project.slug);
    expect((await owner.client.call('listNotices'))[0]).toMatchObject({ kind: 'appeal.upheld' });
    const [decision] = await platform.deps.sql`select decision, note from review_decisions where appeal_id = ${appealId}`;
    expect(decision).toEqual({ decision: 'uphold', note: 'trademark shown' });
  });

  it('a takedown pulls the listing with a notice; listing again waits for review; the operator approves or rejects', async () => {
    const { owner, project, params } = await projectWithCard(await platform.person({ plan: 'team' }));
    await owner.client.call('listProject', { params });
    await opsProjectCommands.takedown(platform.deps.sql, project.slug);
    expect((await owner.client.call('getCard', { params })).status).toBe('pulled');
    expect((await owner.client.call('listNotices'))[0]).toMatchObject({ kind: 'listing.takedown' });
    await opsProjectCommands.restore(platform.deps.sql, project.slug);
    expect((await owner.client.call('rehearseListing', { params })).outcome).toBe('pending');
    expect((await owner.client.call('listProject', { params })).status).toBe('pending');
    expect(await review(platform.deps.sql, platform.deps.storage, ['list'])).toContain(project.slug);
    await review(platform.deps.sql, platform.deps.storage, ['approve', project.slug]);
    expect((await owner.client.call('getCard', { params })).status).toBe('listed');
    await review(platform.deps.sql, platform.deps.storage, ['pull', project.slug, 'misleading pricing']);
    expect(await owner.client.call('getCard', { params })).toMatchObject({
      status: 'pulled',
      rejectReason: 'misleading pricing',
      appealable: true,
    });
    expect((await owner.client.call('listNotices'))[0]).toMatchObject({ kind: 'listing.pulled' });
  });

  it('at most 3 appeals a workspace in 30 days; the fourth card is not appealable and its appeal is 429', async () => {
    const owner = await platform.person({ plan: 'team' });
    for (let i = 0; i < 4; i++) {
      const { params } = await projectWithCard(owner);
      await owner.client.call('saveCard', { params, body: { title: 'Paypa1 again', line: 'x' } });
      await owner.client.call('listProject', { params }).catch(() => null);
      expect(await owner.client.call('getCard', { params })).toMatchObject({ status: 'blocked', appealable: i < 3 });
      const appeal = owner.client.call('appealListing', { params, body: { message: 'It is our own product name.' } });
      if (i < 3) expect((await appeal).appeal).toMatchObject({ status: 'open' });
      else expect(await refusal(appeal)).toMatchObject({ status: 429, body: { reason: 'rate' } });
      if (i === 2)
        await platform.deps
          .sql`delete from community_actions where workspace_id = ${(await owner.client.call('whoami')).workspace.id} and kind = 'list'`;
    }
  });
});

describe('covers from the build, reports, suggested wording', () => {
  it('checks a file of the live build as a cover by its bytes, and copies it', async () => {
    const { owner, params } = await projectWithCard(undefined, {
      'index.html': '<title>A</title>',
      'img/cover.png': await png(80, 40),
      'img/fake.png': 'not a picture',
    });
    expect(await owner.client.call('checkBuildCover', { params, body: { path: '/img/cover.png' } })).toEqual({
      path: '/img/cover.png',
      type: 'image/png',
      bytes: expect.any(Number),
    });
    for (const path of ['/img/fake.png', '/img/missing.png', '/../secret']) {
      expect((await refusal(owner.client.call('checkBuildCover', { params, body: { path } }))).body, path).toMatchObject({
        reason: 'file',
      });
    }
    const card = await owner.client.call('coverFromBuild', { params, body: { path: '/img/cover.png' } });
    expect(card.cover).toMatchObject({ type: 'image/png' });
    expect((await owner.client.call('removeCover', { params })).cover).toBeNull();
    const notImage = await platform.fetch(`/api/projects/${params.projectId}/card/cover`, {
      method: 'PUT',
      token: owner.token,
      body: Buffer.from('GIF89a'),
    });
    expect(notImage).toMatchObject({ status: 422, body: { reason: 'file' } });
  });

  it('takes reports from anyone signed in: 404 for an unknown project, 20 a day each across processes', async () => {
    const { project } = await projectWithCard();
    const reporter = await platform.person();
    expect(await refusal(reporter.client.call('reportProject', { body: { slug: 'no-such-project-here', reason: 'spam' } }))).toMatchObject({
      status: 404,
    });
    const second = await startPlatform();
    try {
      const other = (await import('@demo-rooms/contract')).createClient({ baseUrl: second.baseUrl, token: reporter.token });
      for (let i = 0; i < 20; i++)
        await (i % 2 ? other : reporter.client).call('reportProject', {
          body: { slug: project.slug, reason: 'phishing', detail: `#${i}` },
        });
      expect(await refusal(other.call('reportProject', { body: { slug: project.slug, reason: 'spam' } }))).toMatchObject({
        status: 429,
        body: { reason: 'rate' },
      });
    } finally {
      await second.close();
    }
    expect(await review(platform.deps.sql, platform.deps.storage, ['list'])).toContain(project.slug);
  });

  it('suggestWording is 503 without a model, and with one drafts checked words', async () => {
    const { owner, params } = await projectWithCard();
    expect(await refusal(owner.client.call('suggestWording', { params, body: { title: 'x', line: 'y' } }))).toMatchObject({
      status: 503,
      body: { reason: 'unavailable' },
    });
    expect((await owner.client.call('getCard', { params })).suggest).toBe(false);
    // A stand-in for an OpenAI-compatible API on loopback.
    const model = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const asked = JSON.parse(body);
        const ok = req.headers.authorization === 'Bearer test-key' && req.url === '/v1/chat/completions' && asked.model === 'test-model';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            choices: [
              {
                message: {
                  content: JSON.stringify({ title: 'Acme CRM for small teams', line: 'Every deal, every follow-up, one board.' }),
                },
              },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const withModel = await startPlatform({
      env: { AI_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, AI_API_KEY: 'test-key', AI_MODEL: 'test-model' },
    });
    try {
      const client = (await import('@demo-rooms/contract')).createClient({ baseUrl: withModel.baseUrl, token: owner.token });
      expect(await client.call('suggestWording', { params, body: { title: 'crm', line: 'deals' } })).toEqual({
        title: 'Acme CRM for small teams',
        line: 'Every deal, every follow-up, one board.',
      });
      expect((await client.call('getCard', { params })).suggest).toBe(true);
    } finally {
      await withModel.close();
      model.close();
    }
  });
});
