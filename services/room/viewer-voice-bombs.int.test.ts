import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webpBomb } from '../../test/fixtures/images.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../test/support/room.js';

// Comment screenshots that are decompression bombs (security-3 H1): a 2.6 KB lossless WebP
// declaring 8192×8192 pixels, sent by anyone who can open a room, cost the room process 522 MB
// and 2.5 s each. Now each is refused on its header (422 file), after the cheap checks (429 for a
// session past its comments), or shed (503 when the decode queue is full), and the process
// barely grows.

let platform: Platform;
// The bombs are made first: making one blocks this process (where the platform runs) for seconds,
// and a keep-alive connection idle across such a pause may be reset under the client.
const bombs: { big: Buffer; small: Buffer } = { big: Buffer.alloc(0), small: Buffer.alloc(0) };
beforeAll(async () => {
  bombs.big = webpBomb(8192);
  bombs.small = webpBomb(4096);
  platform = await startPlatform({ workers: true, env: { COMMENTS_PER_SESSION_HOUR: '4' } });
});
afterAll(async () => {
  await platform.close();
});

async function viewer() {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Grace Prospect' } });
  const room = await enterRoom(platform, url);
  const post = (json: unknown) => hit(platform, `${room.base}/comments`, { method: 'POST', jar: room.jar, json });
  return { person, project, post };
}

const withPicture = (bytes: Buffer, body = 'Look at this') => ({
  appId: 'web',
  screen: '/',
  body,
  position: { x: 0.5, y: 0.5 },
  area: null,
  device: 'laptop',
  screenshot: { type: 'image/webp', data: bytes.toString('base64') },
  screenshotNote: null,
});
const MB = 1024 * 1024;

describe('bomb screenshots', () => {
  it('four 8192² and then five 4096² bomb comments at once: each refused, RSS grows by under 64 MB, nothing stored', async () => {
    const v = await viewer();
    const big = withPicture(bombs.big);
    const small = withPicture(bombs.small);
    const before = process.memoryUsage().rss;
    const four = await Promise.all([1, 2, 3, 4].map(() => v.post(big)));
    const five = await Promise.all([1, 2, 3, 4, 5].map(() => v.post(small)));
    const grown = process.memoryUsage().rss - before;
    for (const answer of [...four, ...five]) {
      expect([422, 429, 503]).toContain(answer.status);
      if (answer.status === 422) expect(answer.json).toMatchObject({ error: 'refused: file', reason: 'file' });
      if (answer.status === 503) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(four.map((a) => a.json.detail)).toEqual(Array(4).fill(expect.stringMatching(/8192×8192 pixels; at most 4096 pixels a side/)));
    expect(five[0].json.detail).toMatch(/4096×4096 pixels in \d+ bytes.*at most 1000 pixels a byte/);
    expect(grown).toBeLessThan(64 * MB);
    expect(await v.person.client.call('listComments', { params: { projectId: v.project.id } })).toEqual([]);
    expect(await platform.deps.storage.list(`screenshots/${v.project.id}/`)).toEqual([]);
  }, 180_000);

  it('a session past its comments an hour is told 429 before its picture is read', async () => {
    const v = await viewer();
    const plain = { ...withPicture(Buffer.alloc(0)), screenshot: null, screenshotNote: 'no-answer' };
    for (let i = 0; i < 4; i++) expect((await v.post({ ...plain, body: `comment ${i}` })).status).toBe(200);
    const bomb = await v.post(withPicture(bombs.big));
    expect(bomb.status).toBe(429);
    expect(bomb.json).toMatchObject({ reason: 'rate' });
  }, 180_000);

  it('a preview records nothing and never reads the picture', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('previewPass', { params: { projectId: project.id } });
    const room = await enterRoom(platform, url);
    const sent = await hit(platform, `${room.base}/comments`, { method: 'POST', jar: room.jar, json: withPicture(bombs.big) });
    expect(sent.json).toEqual({ recorded: false, askEmail: false });
  }, 180_000);
});
