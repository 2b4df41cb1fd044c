import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit, shellData } from '../../test/support/room.js';
import { screenshotPng } from '../../test/support/pictures.js';
import { noteCaptureBlock } from '../data/capture-blocks.sql.js';
import { staticLabelOf } from './origins.js';

// The room's endpoints for the viewer's voice (viewer-voice.routes.ts): answers to What happens
// next, comments pinned to screens with their screenshots, the one-time email prompt, and how
// each moves the link's stage. Every bad input is a clear refusal that writes nothing.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true, env: { COMMENTS_PER_SESSION_HOUR: '4', SCREENSHOT_MAX_BYTES: '50000' } });
});
afterAll(async () => {
  await platform.close();
});

async function viewer(plan = 'solo') {
  const person = await platform.person({ plan });
  const { project, build } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Grace Prospect' },
  });
  const room = await enterRoom(platform, url);
  const post = (path: string, json: unknown) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, json });
  const stage = async () =>
    (await person.client.call('listLinks', { params: { projectId: project.id } })).find((l) => l.id === link.id)!.stage;
  return { person, project, build, url, link, room, post, stage };
}

const png = (width = 64, height = 40) => screenshotPng(width, height);
const comment = (extra: Record<string, unknown> = {}) => ({
  appId: 'web',
  screen: '/',
  body: 'The total looks wrong here',
  position: { x: 0.25, y: 0.5 },
  area: null,
  device: 'laptop',
  screenshot: null,
  screenshotNote: 'no-answer',
  ...extra,
});

describe('What happens next in the room', () => {
  it('offers the default steps with their words, records an answer once per visit, and moves the stage', async () => {
    const v = await viewer();
    expect(v.room.data.voice.steps.map((s: { kind: string }) => s.kind)).toEqual(['yes', 'question', 'later']);
    expect(await v.stage()).toBe('opened');

    const first = await v.post('answer', { step: 'later' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ recorded: true, again: false, askEmail: true });
    // A double click: one record, the same answer back, no second email prompt.
    const again = await v.post('answer', { step: 'later' });
    expect(again.json).toMatchObject({ recorded: true, again: true, id: first.json.id, askEmail: false });
    expect(await v.stage()).toBe('later');

    const asked = await v.post('answer', { step: 'question', detail: { text: 'Does it work offline?' } });
    expect(asked.json.askEmail).toBe(false);
    const responses = await v.person.client.call('listResponses', { params: { projectId: v.project.id } });
    expect(responses.map((r) => r.step)).toEqual(['question', 'later']);
    expect(responses[0]).toMatchObject({ linkId: v.link.id, viewerName: 'Ada Viewer', detail: { text: 'Does it work offline?' } });
    // A question is not an answer of yes, later or no: the stage stays.
    expect(await v.stage()).toBe('later');
    const yes = await v.post('answer', { step: 'yes' });
    expect(yes.status).toBe(200);
    expect(await v.stage()).toBe('yes');

    // The room remembers what this visit answered.
    const page = await hit(platform, new URL(v.url).pathname, { jar: v.room.jar });
    expect(shellData(page.text).voice.answered.sort()).toEqual(['later', 'question', 'yes']);
  });

  it('refuses a step not offered, a question without words and a colleague without an email, writing nothing', async () => {
    const v = await viewer();
    expect((await v.post('answer', { step: 'meeting' })).status).toBe(404);
    const noWords = await v.post('answer', { step: 'question', detail: { text: '  ' } });
    expect(noWords.status).toBe(400);
    expect(noWords.json.issues[0].path).toBe('detail.text');
    await v.person.client.call('setNextSteps', {
      params: { projectId: v.project.id },
      body: { steps: [{ kind: 'colleague' }, { kind: 'meeting', url: 'https://cal.example/ada' }] },
    });
    expect((await v.post('answer', { step: 'colleague', detail: { name: 'Bo' } })).status).toBe(400);
    expect((await v.post('answer', { step: 'nope' })).status).toBe(400);
    expect(await v.person.client.call('listResponses', { params: { projectId: v.project.id } })).toEqual([]);
    expect(await v.stage()).toBe('opened');

    const added = await v.post('answer', { step: 'colleague', detail: { name: 'Bo Boss', email: 'bo@example.com' } });
    expect(added.status).toBe(200);
    const [response] = await v.person.client.call('listResponses', { params: { projectId: v.project.id } });
    expect(response).toMatchObject({ step: 'colleague', detail: { name: 'Bo Boss', email: 'bo@example.com' } });
    // Bringing a colleague in is not an answer: the stage stays where it was.
    expect(await v.stage()).toBe('opened');
  });

  it('asks who the viewer is before taking an answer or a comment', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Nobody Yet' } });
    const jar = new Map<string, string>();
    const page = await hit(platform, new URL(url).pathname, { jar });
    const base = `/room/${shellData(page.text).sessionId}`;
    const answer = await hit(platform, `${base}/answer`, { method: 'POST', jar, json: { step: 'yes' } });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ reason: 'hello' });
    expect((await hit(platform, `${base}/comments`, { method: 'POST', jar, json: comment() })).status).toBe(403);
    expect(await person.client.call('listResponses', { params: { projectId: project.id } })).toEqual([]);
  });

  it('refuses a request from another origin', async () => {
    const v = await viewer();
    const answer = await hit(platform, `${v.room.base}/answer`, { method: 'POST', jar: v.room.jar, json: { step: 'yes' }, noOrigin: true });
    expect(answer.status).toBe(403);
  });
});

describe('link-preview bots and mail scanners', () => {
  it('get a neutral card that records nothing and spends no preview pass', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Pat' } });
    const preview = (await person.client.call('previewPass', { params: { projectId: project.id } })).url;
    const agents = [
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; Microsoft Office/16.0; Windows NT 10.0; Microsoft Outlook 16.0.12026; Pro)',
      'facebookexternalhit/1.1',
      'curl/8.5.0',
      '',
    ];
    for (const agent of agents) {
      for (const address of [url, preview]) {
        const jar = new Map<string, string>();
        const card = await hit(platform, new URL(address).pathname, {
          jar,
          headers: agent ? { 'user-agent': agent } : { 'user-agent': '' },
        });
        expect(card.status).toBe(200);
        expect(card.text).toContain('A private demo');
        expect(card.text).not.toContain('room-data');
        expect(jar.size).toBe(0);
      }
    }
    const [row] = await linkOf(link.id);
    expect(row).toEqual({ stage: 'sent', openedAt: null, visits: 0, sessions: 0 });
    // The pass still opens the room for the builder.
    expect(shellData((await hit(platform, new URL(preview).pathname, { jar: new Map() })).text).preview).toBe(true);
  });

  it('a headless browser gets the room (its visit still waits for the shell), a headless crawler the card', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Kit' } });
    const headlessChromium =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';
    const room = await hit(platform, new URL(url).pathname, { jar: new Map(), headers: { 'user-agent': headlessChromium } });
    expect(room.status).toBe(200);
    expect(room.text).toContain('room-data');
    expect((await linkOf(link.id))[0]).toMatchObject({ stage: 'sent', visits: 0, sessions: 1 });

    const crawler = `${headlessChromium} (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`;
    const card = await hit(platform, new URL(url).pathname, { jar: new Map(), headers: { 'user-agent': crawler } });
    expect(card.text).toContain('A private demo');
    expect((await linkOf(link.id))[0]).toMatchObject({ sessions: 1 });
  });
});

/** What a link's open left behind: its stage, when it was opened, its visits and sessions. */
const linkOf = (linkId: string) => platform.deps.sql<{ stage: string; openedAt: Date | null; visits: number; sessions: number }[]>`
  select stage, opened_at, (select count(*)::int from visits where link_id = l.id) as visits,
         (select count(*)::int from room_sessions where link_id = l.id) as sessions
  from links l where id = ${linkId}`;

describe('evidence that moves a link to engaged', () => {
  it('a story step taken, with or without calls', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person, {
      files: { 'index.html': '<!doctype html><title>x</title>' },
      manifest: {
        kind: 'static',
        name: 'Story',
        output: 'dist',
        apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }],
        story: [{ id: 'look', title: 'Look', say: 'Here.', app: 'web' }],
      },
    });
    const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Sam' } });
    const room = await enterRoom(platform, url);
    const stage = async () =>
      (await person.client.call('listLinks', { params: { projectId: project.id } })).find((l) => l.id === link.id)!.stage;
    expect(await stage()).toBe('opened');
    expect((await hit(platform, `${room.base}/run`, { method: 'POST', jar: room.jar, json: { step: 'nope' } })).status).toBe(404);
    expect(await stage()).toBe('opened');
    expect((await hit(platform, `${room.base}/run`, { method: 'POST', jar: room.jar, json: { step: 'look' } })).status).toBe(200);
    expect(await stage()).toBe('engaged');
  });

  it('a minute of visible time in one visit, and never back from an answer', async () => {
    const v = await viewer();
    const beat = (seconds: number) =>
      hit(platform, `${v.room.base}/beat`, { method: 'POST', jar: v.room.jar, json: { time: { web: seconds } } });
    await beat(0);
    // The visit began 70 s ago: a beat may count that much time, no more.
    await platform.deps
      .sql`update visits set started_at = now() - interval '70 seconds', last_seen_at = now() - interval '70 seconds' where link_id = ${v.link.id}`;
    await beat(30);
    expect(await v.stage()).toBe('opened');
    await platform.deps.sql`update visits set last_seen_at = now() - interval '40 seconds' where link_id = ${v.link.id}`;
    await beat(35);
    expect(await v.stage()).toBe('engaged');
    await v.post('answer', { step: 'later' });
    await v.post('comments', comment());
    expect(await v.stage()).toBe('later');
  });
});

describe('comments pinned to screens', () => {
  it('stores a comment with its screenshot re-encoded, moves the stage to engaged, and asks for the email once', async () => {
    const v = await viewer();
    const picture = await png();
    const sent = await v.post(
      'comments',
      comment({ screenshot: { type: 'image/png', data: picture.toString('base64') }, screenshotNote: null }),
    );
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({
      recorded: true,
      askEmail: true,
      comment: { hasScreenshot: true, body: 'The total looks wrong here' },
    });
    expect(await v.stage()).toBe('engaged');

    const [listed] = await v.person.client.call('listComments', { params: { projectId: v.project.id } });
    expect(listed).toMatchObject({
      appId: 'web',
      screen: '/',
      position: { x: 0.25, y: 0.5 },
      area: null,
      device: 'laptop',
      hasScreenshot: true,
      linkId: v.link.id,
    });
    const stored = await platform.deps.storage.get(`screenshots/${v.project.id}/${listed.id}`);
    const bytes = Buffer.concat(await stored!.body.toArray());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 64, height: 40 });

    // The email: given once, asked no more.
    expect((await v.post('email', { email: 'not an email' })).status).toBe(400);
    expect((await v.post('email', { email: 'grace@example.com' })).status).toBe(200);
    const second = await v.post('comments', comment({ area: { x: 0.1, y: 0.1, width: 0.5, height: 0.3 }, position: null }));
    expect(second.json.askEmail).toBe(false);
    const detail = await v.person.client.call('getFeedback', { params: { commentId: second.json.comment.id } });
    expect(detail.viewer?.email).toBe('grace@example.com');
  });

  it('does not ask for the email when the link carries it, nor again in another browser of the same person (issue 47, item 6)', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const mailed = await person.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'Grace Prospect', viewerEmail: 'grace@example.com' },
    });
    const known = await enterRoom(platform, mailed.url, { name: 'Grace Prospect' });
    const sent = await hit(platform, `${known.base}/comments`, { method: 'POST', jar: known.jar, json: comment() });
    expect(sent.json.askEmail).toBe(false);

    const plain = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const laptop = await enterRoom(platform, plain.url, { name: 'Ada' });
    const first = await hit(platform, `${laptop.base}/comments`, { method: 'POST', jar: laptop.jar, json: comment() });
    expect(first.json.askEmail).toBe(true);
    expect(
      (await hit(platform, `${laptop.base}/email`, { method: 'POST', jar: laptop.jar, json: { email: 'ada@example.com' } })).status,
    ).toBe(200);
    // Her phone: another browser, the same name on the same link.
    const phone = await enterRoom(platform, plain.url, { name: 'ada ' });
    const again = await hit(platform, `${phone.base}/comments`, { method: 'POST', jar: phone.jar, json: comment() });
    expect(again.json.askEmail).toBe(false);
    // Someone else on that link is still asked.
    const other = await enterRoom(platform, plain.url, { name: 'Bo Colleague' });
    const theirs = await hit(platform, `${other.base}/comments`, { method: 'POST', jar: other.jar, json: comment() });
    expect(theirs.json.askEmail).toBe(true);
  });

  it('keeps a picture of one colour all over as no picture, noted blank, and stores nothing', async () => {
    const v = await viewer();
    // What a capture of a heavy page gave under load: a white box the builder would have been shown.
    const white = await sharp({ create: { width: 320, height: 200, channels: 4, background: '#ffffff' } })
      .png()
      .toBuffer();
    const sent = await v.post(
      'comments',
      comment({ screenshot: { type: 'image/png', data: white.toString('base64') }, screenshotNote: null }),
    );
    expect(sent.status).toBe(200);
    expect(sent.json.comment).toMatchObject({ hasScreenshot: false, screenshotNote: 'blank' });
    const [listed] = await v.person.client.call('listComments', { params: { projectId: v.project.id } });
    expect(listed).toMatchObject({ hasScreenshot: false });
    const detail = await v.person.client.call('getFeedback', { params: { commentId: listed.id } });
    expect(detail).toMatchObject({ screenshotNote: 'blank' });
    expect(await platform.deps.storage.get(`screenshots/${v.project.id}/${listed.id}`)).toBeNull();
  });

  it('refuses an empty or 2,001-character body, a point outside the frame, and pictures that are not images or too large', async () => {
    const v = await viewer();
    const refusals = [
      [comment({ body: '' }), 400, 'body'],
      [comment({ body: 'x'.repeat(2001) }), 400, 'body'],
      [comment({ position: { x: 1.2, y: 0.5 } }), 400, 'position.x'],
      [comment({ position: null, area: { x: 0.8, y: 0.1, width: 0.5, height: 0.2 } }), 400, 'area'],
      [comment({ position: null, area: null }), 400, 'position'],
      [comment({ device: 'watch' }), 400, 'device'],
    ] as const;
    for (const [body, status, path] of refusals) {
      const answer = await v.post('comments', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(answer.json.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const notImage = await v.post(
      'comments',
      comment({ screenshot: { type: 'image/png', data: Buffer.from('<svg/>').toString('base64') }, screenshotNote: null }),
    );
    expect(notImage.status).toBe(422);
    expect(notImage.json).toMatchObject({ reason: 'file' });
    const noise = Buffer.from(Array.from({ length: 150 * 150 * 3 }, () => Math.floor(Math.random() * 256)));
    const tooLarge = await sharp(noise, { raw: { width: 150, height: 150, channels: 3 } })
      .png()
      .toBuffer();
    expect(tooLarge.length).toBeGreaterThan(50_000);
    const big = await v.post(
      'comments',
      comment({ screenshot: { type: 'image/png', data: tooLarge.toString('base64') }, screenshotNote: null }),
    );
    expect(big.status).toBe(422);
    expect(big.json.detail).toMatch(/at most 50000/);
    expect((await v.post('comments', comment({ appId: 'nope' }))).status).toBe(404);

    expect(await v.person.client.call('listComments', { params: { projectId: v.project.id } })).toEqual([]);
    expect((await platform.deps.storage.list(`screenshots/${v.project.id}/`)).length).toBe(0);
    expect(await v.stage()).toBe('opened');
  });

  it('says blocked when the frame never answered and its page stopped the agent', async () => {
    const v = await viewer();
    await noteCaptureBlock(platform.deps.sql, v.room.data.sessionId, staticLabelOf(v.project.slug, v.project.id), true);
    const sent = await v.post('comments', comment({ screenshotNote: 'no-answer' }));
    expect(sent.json.comment.screenshotNote).toBe('blocked');
    const timedOut = await v.post('comments', comment({ screenshotNote: 'timeout' }));
    expect(timedOut.json.comment.screenshotNote).toBe('timeout');
  });

  it('caps the comments of one session an hour with 429 and Retry-After', async () => {
    const v = await viewer();
    for (let i = 0; i < 4; i++) expect((await v.post('comments', comment({ body: `comment ${i}` }))).status).toBe(200);
    const fifth = await v.post('comments', comment());
    expect(fifth.status).toBe(429);
    expect(fifth.json).toMatchObject({ reason: 'rate' });
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('records nothing from a preview', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('previewPass', { params: { projectId: project.id } });
    const room = await enterRoom(platform, url);
    const post = (path: string, json: unknown) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, json });
    expect((await post('answer', { step: 'yes' })).json).toEqual({ recorded: false, askEmail: false });
    expect((await post('comments', comment())).json).toEqual({ recorded: false, askEmail: false });
    expect(await person.client.call('listComments', { params: { projectId: project.id } })).toEqual([]);
    expect(await person.client.call('listResponses', { params: { projectId: project.id } })).toEqual([]);
  });

  it('shows the viewer their comments with the reply, through the same link, after the link is revoked they stay', async () => {
    const v = await viewer();
    const sent = await v.post('comments', comment());
    const commentId = sent.json.comment.id;
    await v.person.client.call('replyToComment', { params: { commentId }, body: { body: 'Fixed in the next build, thanks!' } });
    const page = await hit(platform, new URL(v.url).pathname, { jar: new Map() });
    const mine = shellData(page.text).voice.comments;
    expect(mine.map((c: { id: string }) => c.id)).toEqual([commentId]);
    expect(mine[0]).toMatchObject({ reply: 'Fixed in the next build, thanks!', from: expect.any(String) });
    await v.person.client.call('revokeLink', { params: { linkId: v.link.id } });
    expect((await v.person.client.call('listComments', { params: { projectId: v.project.id } })).length).toBe(1);
  });

  it("counts a reply as new until the viewer has seen it, and only their link's comments are marked (issue 47, item 6)", async () => {
    const v = await viewer();
    const other = await viewer();
    const mine = (await v.post('comments', comment())).json.comment.id;
    const theirs = (await other.post('comments', comment())).json.comment.id;
    await v.person.client.call('replyToComment', { params: { commentId: mine }, body: { body: 'Fixed.' } });
    await other.person.client.call('replyToComment', { params: { commentId: theirs }, body: { body: 'Fixed too.' } });
    const news = async (url: string, jar = new Map<string, string>()) =>
      shellData((await hit(platform, new URL(url).pathname, { jar })).text).voice.comments.map((c) => c.replyNew);
    expect(await news(v.url)).toEqual([true]);

    // Another link's comment, and ids that are no comment: nothing marked, no refusal.
    const seen = await v.post('replies-seen', { comments: [theirs, 'not-an-id'] });
    expect(seen.status).toBe(200);
    expect(seen.json).toEqual({ ok: true });
    expect(await news(other.url)).toEqual([true]);
    expect((await v.post('replies-seen', { comments: [mine] })).json).toEqual({ ok: true });
    expect(await news(v.url)).toEqual([false]);
    // Asked from the room as it is: the same comments, the same word on each reply.
    const asked = await v.post('replies', {});
    expect(asked.status).toBe(200);
    expect(asked.json.comments.map((c: { id: string; reply: string; replyNew: boolean }) => [c.id, c.reply, c.replyNew])).toEqual([
      [mine, 'Fixed.', false],
    ]);
    // A reply that replaces the one seen is new again.
    await v.person.client.call('replyToComment', { params: { commentId: mine }, body: { body: 'Fixed, and more.' } });
    expect(await news(v.url)).toEqual([true]);

    // A body that does not fit: 400 naming the field; another origin: 403.
    const bad = await v.post('replies-seen', { comments: 'all' });
    expect(bad.status).toBe(400);
    expect(bad.json.issues.map((i: { path: string }) => i.path)).toEqual(['comments']);
    const stranger = await hit(platform, `${v.room.base}/replies-seen`, {
      method: 'POST',
      jar: v.room.jar,
      json: { comments: [mine] },
      noOrigin: true,
    });
    expect(stranger.status).toBe(403);
    expect(await news(v.url)).toEqual([true]);
  });
});
