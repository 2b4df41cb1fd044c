import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom, enterRoom, hit } from '../../../test/support/room.js';
import { screenshotPng } from '../../../test/support/pictures.js';
import { tgz } from '../../../test/support/archives.js';

// The builder's side of the viewer's voice (spec 4.2): next steps, the tour, answers, comments,
// feedback with its screenshot, resolve and reply, each with its refusals; the replies pass the
// contract (the typed client checks every one).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/** A live static room, a viewer in it through a link, and a comment of theirs with a screenshot. */
async function roomWithComment(person?: Person) {
  const owner = person ?? (await platform.person({ plan: 'solo', name: 'Grace Owner' }));
  const { project } = await deployStaticRoom(platform, owner);
  const { url, link } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  const room = await enterRoom(platform, url, { appId: 'web' });
  const post = (path: string, json: unknown) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, json });
  const picture = await screenshotPng(48, 32, '#0b7285');
  const sent = await post('comments', {
    appId: 'web',
    screen: '/pricing',
    body: 'Is this the yearly price?',
    position: { x: 0.5, y: 0.25 },
    area: null,
    device: 'laptop',
    screenshot: { type: 'image/png', data: picture.toString('base64') },
    screenshotNote: null,
  });
  expect(sent.status).toBe(200);
  await post('answer', { step: 'question', detail: { text: 'Can I see the yearly price?' } });
  return { owner, project, link, commentId: sent.json.comment.id as string, post };
}

describe('next steps', () => {
  it('answers the defaults, keeps the words of a step left out and restores them when it comes back', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('ns'), name: 'Steps' } });
    const params = { projectId: project.id };
    const first = await person.client.call('getNextSteps', { params });
    expect(first).toMatchObject({ planAllows: true, offered: ['yes', 'question', 'later'], removed: [] });

    const set = await person.client.call('setNextSteps', {
      params,
      body: {
        steps: [
          { kind: 'meeting', label: 'Book 20 minutes', url: 'https://cal.example.com/grace', prompt: 'Any time this week.' },
          { kind: 'question', label: 'Ask me anything' },
        ],
      },
    });
    expect(set.steps).toEqual([
      { kind: 'meeting', label: 'Book 20 minutes', prompt: 'Any time this week.', url: 'https://cal.example.com/grace' },
      { kind: 'question', label: 'Ask me anything', prompt: expect.any(String), url: null },
    ]);
    expect(set.removed.map((s) => s.kind).sort()).toEqual(['later', 'yes']);
    expect(set.offered).toEqual(['meeting', 'question']);

    // The meeting left out keeps its words; named again with its kind alone, they come back.
    const without = await person.client.call('setNextSteps', { params, body: { steps: [{ kind: 'question' }] } });
    expect(without.removed.find((s) => s.kind === 'meeting')).toMatchObject({
      label: 'Book 20 minutes',
      url: 'https://cal.example.com/grace',
    });
    expect(without.steps).toEqual([{ kind: 'question', label: 'Ask me anything', prompt: expect.any(String), url: null }]);
    const back = await person.client.call('setNextSteps', { params, body: { steps: [{ kind: 'meeting' }, { kind: 'question' }] } });
    expect(back.steps[0]).toEqual({
      kind: 'meeting',
      label: 'Book 20 minutes',
      prompt: 'Any time this week.',
      url: 'https://cal.example.com/grace',
    });
    expect(await person.client.call('getNextSteps', { params })).toEqual(back);
  });

  it('refuses bad steps with 400 and changes nothing', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('ns'), name: 'Steps' } });
    const params = { projectId: project.id };
    const before = await person.client.call('getNextSteps', { params });
    const bad = [
      { steps: ['meeting', 'yes', 'later', 'colleague', 'question', 'no', 'yes'].map((kind) => ({ kind })) },
      { steps: [{ kind: 'yes' }, { kind: 'yes' }] },
      { steps: [{ kind: 'meeting' }] },
      { steps: [{ kind: 'meeting', url: 'javascript:alert(1)' }] },
      { steps: [{ kind: 'yes', label: 'x'.repeat(61) }] },
      { steps: [{ kind: 'maybe' }] },
      { steps: 'yes' },
    ];
    for (const body of bad) {
      const res = await platform.fetch(`/api/projects/${project.id}/next-steps`, { method: 'POST', token: person.token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid', issues: expect.any(Array) });
    }
    const meeting = await platform.fetch(`/api/projects/${project.id}/next-steps`, {
      method: 'POST',
      token: person.token,
      json: { steps: [{ kind: 'meeting' }] },
    });
    expect(meeting.body.issues[0].path).toBe('steps[0].url');
    expect(await person.client.call('getNextSteps', { params })).toEqual(before);
  });

  it('on a plan that cannot choose, keeps the setting and offers only a question', async () => {
    const person = await platform.person();
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('ns'), name: 'Free' } });
    const state = await person.client.call('setNextSteps', {
      params: { projectId: project.id },
      body: { steps: [{ kind: 'yes' }, { kind: 'no' }] },
    });
    expect(state).toMatchObject({ planAllows: false, offered: ['question'] });
    expect(state.steps.map((s) => s.kind)).toEqual(['yes', 'no']);
  });

  it("answers 404 for another workspace's project and 401 without sign-in", async () => {
    const { project } = await roomWithComment();
    const stranger = await platform.person({ plan: 'solo' });
    for (const op of ['getNextSteps', 'getTour', 'listResponses', 'listComments', 'listFeedback'] as const) {
      expect((await refusal(stranger.client.call(op, { params: { projectId: project.id } }))).status).toBe(404);
    }
    expect((await refusal(stranger.client.call('setNextSteps', { params: { projectId: project.id }, body: { steps: [] } }))).status).toBe(
      404,
    );
    expect((await platform.fetch(`/api/projects/${project.id}/next-steps`)).status).toBe(401);
    expect((await platform.fetch(`/api/projects/${randomUUID()}/feedback`, { token: stranger.token })).status).toBe(404);
  });
});

describe('the inbox', () => {
  it('lists answers and comments, shows one with its screenshot, resolves and replies', async () => {
    const { owner, project, link, commentId } = await roomWithComment();
    const params = { projectId: project.id };
    const [response] = await owner.client.call('listResponses', { params });
    expect(response).toMatchObject({ linkId: link.id, step: 'question', detail: { text: 'Can I see the yearly price?' } });
    const [comment] = await owner.client.call('listComments', { params });
    expect(comment).toMatchObject({
      id: commentId,
      linkId: link.id,
      viewerName: 'Ada Viewer',
      appId: 'web',
      screen: '/pricing',
      hasScreenshot: true,
      resolvedAt: null,
    });
    const [rec] = await owner.client.call('listFeedback', { params });
    expect(rec).toMatchObject({ id: commentId, reply: null, repliedAt: null, from: null });

    const detail = await owner.client.call('getFeedback', { params: { commentId } });
    expect(detail).toMatchObject({
      projectId: project.id,
      appName: 'Website',
      screenshotNote: null,
      screenshot: { url: `/api/comments/${commentId}/screenshot`, type: 'image/png', width: 48, height: 32 },
      viewer: { name: 'Ada Viewer', email: null, linkId: link.id },
      thread: [{ kind: 'comment', by: 'Ada Viewer', body: 'Is this the yearly price?' }],
    });
    const picture = await fetch(platform.baseUrl + detail.screenshot!.url, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(picture.status).toBe(200);
    expect(picture.headers.get('cache-control')).toBe('private, no-store');
    expect(picture.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await picture.arrayBuffer());
    expect(bytes.length).toBe(detail.screenshot!.bytes);
    expect(await sharp(bytes).metadata()).toMatchObject({ width: 48, height: 32 });

    const resolved = await owner.client.call('resolveComment', { params: { commentId }, body: { resolved: true } });
    expect(resolved.resolvedAt).not.toBeNull();
    expect((await owner.client.call('resolveComment', { params: { commentId }, body: { resolved: false } })).resolvedAt).toBeNull();

    const first = await owner.client.call('replyToComment', { params: { commentId }, body: { body: 'Yes, billed yearly.' } });
    expect(first).toMatchObject({ reply: 'Yes, billed yearly.', from: { displayName: 'Grace Owner' } });
    const second = await owner.client.call('replyToComment', { params: { commentId }, body: { body: 'Yes: billed once a year.' } });
    expect(second.reply).toBe('Yes: billed once a year.');
    expect(Date.parse(second.repliedAt!)).toBeGreaterThanOrEqual(Date.parse(first.repliedAt!));
    const thread = (await owner.client.call('getFeedback', { params: { commentId } })).thread;
    expect(thread.map((t) => [t.kind, t.body])).toEqual([
      ['comment', 'Is this the yearly price?'],
      ['reply', 'Yes: billed once a year.'],
    ]);
  });

  it("refuses a bad reply or resolve, and a foreign or missing comment, with the spec's answers", async () => {
    const { owner, commentId } = await roomWithComment();
    const stranger = await platform.person({ plan: 'solo' });
    for (const body of [{ body: '' }, { body: 'x'.repeat(2001) }, {}]) {
      expect((await platform.fetch(`/api/comments/${commentId}/reply`, { method: 'POST', token: owner.token, json: body })).status).toBe(
        400,
      );
    }
    expect(
      (await platform.fetch(`/api/comments/${commentId}/resolve`, { method: 'POST', token: owner.token, json: { resolved: 'yes' } }))
        .status,
    ).toBe(400);
    for (const id of [commentId, randomUUID(), 'not-a-uuid']) {
      expect((await refusal(stranger.client.call('getFeedback', { params: { commentId: id } }))).status).toBe(404);
      expect((await refusal(stranger.client.call('replyToComment', { params: { commentId: id }, body: { body: 'hi' } }))).status).toBe(404);
      expect((await refusal(stranger.client.call('resolveComment', { params: { commentId: id }, body: { resolved: true } }))).status).toBe(
        404,
      );
      expect((await platform.fetch(`/api/comments/${id}/screenshot`, { token: stranger.token })).status).toBe(404);
      expect((await refusal(stranger.client.call('removeScreenshot', { params: { commentId: id } }))).status).toBe(404);
    }
    expect((await platform.fetch(`/api/comments/${commentId}/screenshot`)).status).toBe(401);
    // The stranger's attempts changed nothing.
    expect(await owner.client.call('getFeedback', { params: { commentId } })).toMatchObject({
      reply: null,
      resolvedAt: null,
      screenshotNote: null,
    });
  });

  it('removes a screenshot for good; its note says removed, and a second removal changes nothing', async () => {
    const { owner, project, commentId } = await roomWithComment();
    const removed = await owner.client.call('removeScreenshot', { params: { commentId } });
    expect(removed).toMatchObject({ screenshot: null, screenshotNote: 'removed', hasScreenshot: false });
    expect((await platform.fetch(`/api/comments/${commentId}/screenshot`, { token: owner.token })).status).toBe(404);
    expect(await platform.deps.storage.list(`screenshots/${project.id}/`)).toEqual([]);
    expect(await owner.client.call('removeScreenshot', { params: { commentId } })).toEqual(removed);
  });

  it('lists each comment with its app name, screenshot note and email, as getFeedback says them: one read for the inbox (issue 29, item 7)', async () => {
    const { owner, project, commentId, post } = await roomWithComment();
    // A second comment, without a picture for a reason.
    const sent = await post('comments', {
      appId: 'web',
      screen: '/',
      body: 'It went black.',
      position: { x: 0.1, y: 0.1 },
      area: null,
      device: 'laptop',
      screenshot: null,
      screenshotNote: 'no-answer',
    });
    expect(sent.status).toBe(200);
    await owner.client.call('removeScreenshot', { params: { commentId } });
    const list = await owner.client.call('listFeedback', { params: { projectId: project.id } });
    expect(list.map((c) => [c.body, c.appName, c.screenshotNote, c.viewerEmail])).toEqual([
      ['It went black.', 'Website', 'no-answer', null],
      ['Is this the yearly price?', 'Website', 'removed', null],
    ]);
    for (const c of list) {
      const detail = await owner.client.call('getFeedback', { params: { commentId: c.id } });
      expect([c.appName, c.screenshotNote, c.viewerEmail]).toEqual([detail.appName, detail.screenshotNote, detail.viewer?.email ?? null]);
    }
  });

  it('keeps answers and comments after the link is revoked', async () => {
    const { owner, project, link } = await roomWithComment();
    await owner.client.call('revokeLink', { params: { linkId: link.id } });
    expect((await owner.client.call('listComments', { params: { projectId: project.id } })).length).toBe(1);
    expect((await owner.client.call('listResponses', { params: { projectId: project.id } })).length).toBe(1);
  });
});

describe('the tour', () => {
  const manifest = {
    kind: 'static',
    name: 'Tour',
    output: 'dist',
    apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }],
    story: [
      { id: 'home', title: 'Home', say: 'The home page.', app: 'web' },
      { id: 'more', title: 'More', say: 'More of it.', app: 'web', path: '/' },
    ],
  };
  async function upload(person: Person, projectId: string) {
    const bytes = await tgz({ 'index.html': '<!doctype html><title>t</title>' });
    const { uploadId, putUrl } = await person.client.call('startUpload', {
      params: { projectId },
      body: { kind: 'static', sizeBytes: bytes.length },
    });
    await platform.fetch(putUrl, { method: 'PUT', token: person.token, body: bytes });
    return uploadId;
  }
  const rehearsal = (steps: { id: string; result: 'passed' | 'failed' | 'nothing-to-run' }[]) => ({
    tool: 'pitch/test',
    at: new Date().toISOString(),
    health: null,
    steps: steps.map((s) => ({ ...s, calls: [] })),
  });

  it("is empty with nothing live, not reported without a rehearsal, and the rehearsal's results with one", async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('tr'), name: 'Tour' } });
    const params = { projectId: project.id };
    expect(await person.client.call('getTour', { params })).toEqual({ build: null, steps: [], reported: false });

    const bare = await person.client.call('createBuild', {
      params,
      body: { uploadId: await upload(person, project.id), manifest: manifest as never },
    });
    await person.client.call('makeLive', { params: { ...params, buildId: bare.id } });
    const unreported = await person.client.call('getTour', { params });
    expect(unreported.reported).toBe(false);
    expect(unreported.steps.map((s) => s.result)).toEqual(['not-reported', 'not-reported']);
    expect(unreported.steps[0]).toMatchObject({ id: 'home', app: 'web', appName: 'Website', calls: [], rehearsed: [] });

    const rehearsed = await person.client.call('createBuild', {
      params,
      body: {
        uploadId: await upload(person, project.id),
        manifest: manifest as never,
        rehearsal: rehearsal([{ id: 'home', result: 'nothing-to-run' }]),
      },
    });
    await person.client.call('makeLive', { params: { ...params, buildId: rehearsed.id } });
    const tour = await person.client.call('getTour', { params });
    expect(tour).toMatchObject({ reported: true, build: { id: rehearsed.id, tool: 'pitch/test' } });
    // A step the rehearsal did not report is not reported, never passed.
    expect(tour.steps.map((s) => s.result)).toEqual(['nothing-to-run', 'not-reported']);
  });

  it("gives each build its state and problems: the manifest's notes and the steps its rehearsal saw fail (issue 29, item 7)", async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('tr'), name: 'Tour' } });
    const params = { projectId: project.id };
    const { story: _story, ...noStory } = manifest;
    const plain = await person.client.call('createBuild', {
      params,
      body: { uploadId: await upload(person, project.id), manifest: noStory as never },
    });
    expect(plain).toMatchObject({ state: 'ready', problems: [{ code: 'no-story', message: expect.any(String) }] });
    const failing = await person.client.call('createBuild', {
      params,
      body: {
        uploadId: await upload(person, project.id),
        manifest: manifest as never,
        rehearsal: rehearsal([
          { id: 'home', result: 'passed' },
          { id: 'more', result: 'failed' },
        ]),
      },
    });
    expect(failing.problems).toEqual([{ code: 'rehearsal-failed', message: expect.stringContaining('more') }]);
    await person.client.call('makeLive', { params: { ...params, buildId: failing.id } });
    const listed = await person.client.call('listBuilds', { params });
    expect(listed.map((b) => [b.id, b.state, b.problems.map((p) => p.code)])).toEqual([
      [failing.id, 'live', ['rehearsal-failed']],
      [plain.id, 'ready', ['no-story']],
    ]);
    const history = await person.client.call('buildHistory', { params });
    expect(history.map((b) => b.state)).toEqual(['live', 'ready']);
  });

  it('refuses a rehearsal that names a step the manifest does not have, or one step twice, and makes no build', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('tr'), name: 'Tour' } });
    const params = { projectId: project.id };
    const uploadId = await upload(person, project.id);
    for (const [steps, path] of [
      [
        [
          { id: 'home', result: 'passed' },
          { id: 'ghost', result: 'passed' },
        ],
        'rehearsal.steps[1].id',
      ],
      [
        [
          { id: 'home', result: 'passed' },
          { id: 'home', result: 'failed' },
        ],
        'rehearsal.steps[1].id',
      ],
    ] as const) {
      const res = await platform.fetch(`/api/projects/${project.id}/builds`, {
        method: 'POST',
        token: person.token,
        json: { uploadId, manifest, rehearsal: rehearsal([...steps]) },
      });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path, message: expect.any(String) }]);
    }
    const shapeless = await platform.fetch(`/api/projects/${project.id}/builds`, {
      method: 'POST',
      token: person.token,
      json: { uploadId, manifest, rehearsal: { steps: 'all good' } },
    });
    expect(shapeless.status).toBe(400);
    expect(await person.client.call('listBuilds', { params })).toEqual([]);
    // The upload is still there to use.
    expect((await person.client.call('createBuild', { params, body: { uploadId, manifest: manifest as never } })).live).toBe(false);
  });
});
