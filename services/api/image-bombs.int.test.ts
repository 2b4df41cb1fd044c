import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webpBomb } from '../../test/fixtures/images.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom } from '../../test/support/room.js';

// The api's image uploads against decompression bombs (security-3 H1): a 706-byte lossless WebP
// declaring 4096×4096 pixels passed the old per-side limit of photos and covers and cost 210 MB
// to decode. Sent four at a time to each route, every one is refused on its header (422 file)
// or shed (503 with Retry-After), and the process barely grows.

let platform: Platform;
// Made before the platform starts: making it blocks this process for seconds (see the room's test).
let bomb: Buffer;
beforeAll(async () => {
  bomb = webpBomb(4096);
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const MB = 1024 * 1024;
type Answer = { status: number; body: any; headers: Headers };

async function atOnce(send: () => Promise<Answer>) {
  const before = process.memoryUsage().rss;
  const answers = await Promise.all([1, 2, 3, 4].map(send));
  const grown = process.memoryUsage().rss - before;
  for (const a of answers) {
    expect([422, 503]).toContain(a.status);
    if (a.status === 422)
      expect(a.body).toMatchObject({
        error: 'refused: file',
        reason: 'file',
        detail: expect.stringMatching(/4096×4096 pixels in \d+ bytes/),
      });
    if (a.status === 503) expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  expect(grown).toBeLessThan(64 * MB);
}

describe('bomb images sent to the api', () => {
  it('PUT /api/me/photo: four 4096² bombs at once are refused and no photo is kept', async () => {
    const p = await platform.person();
    await atOnce(() =>
      platform.fetch('/api/me/photo', { method: 'PUT', token: p.token, body: bomb, headers: { 'content-type': 'image/webp' } }),
    );
    expect((await p.client.call('whoami')).photo).toBeNull();
  }, 180_000);

  it('the cover PUT and the cover from the build: 4096² bombs are refused and the card keeps no cover', async () => {
    const owner = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, owner, { files: { 'index.html': '<title>A</title>', 'img/bomb.webp': bomb } });
    const params = { projectId: project.id };
    await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' } });
    await atOnce(() =>
      platform.fetch(`/api/projects/${project.id}/card/cover`, {
        method: 'PUT',
        token: owner.token,
        body: bomb,
        headers: { 'content-type': 'image/webp' },
      }),
    );
    await atOnce(() =>
      platform.fetch(`/api/projects/${project.id}/card/cover/build`, {
        method: 'POST',
        token: owner.token,
        json: { path: '/img/bomb.webp' },
      }),
    );
    await atOnce(() =>
      platform.fetch(`/api/projects/${project.id}/card/cover/build/check`, {
        method: 'POST',
        token: owner.token,
        json: { path: '/img/bomb.webp' },
      }),
    );
    expect((await owner.client.call('getCard', { params })).cover).toBeNull();
  }, 180_000);
});
