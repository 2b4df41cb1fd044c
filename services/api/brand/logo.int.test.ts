import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePng, imageOfLength, jpegWithGps, plainImage, pngBomb } from '../../../test/fixtures/images.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

// The logo PUT (spec 4.4) and the workspace's logo address (spec 4.3), against the real object store.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

const putLogo = (p: Person, bytes: Buffer, type = 'image/png') =>
  platform.fetch('/api/brand/logo', { method: 'PUT', token: p.token, body: bytes, headers: { 'content-type': type } });

/** The logo's bytes as a member gets them, raw. */
async function getLogo(p: Person, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(platform.baseUrl + url, { headers: { authorization: `Bearer ${p.token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('the logo', () => {
  it('takes a PNG sent as image/jpeg by its bytes, answers the Brand, and serves it with a hash ETag and 304', async () => {
    const p = await platform.person({ plan: 'pro' });
    const res = await putLogo(p, await plainImage('png', 64, 32), 'image/jpeg');
    expect(res.status).toBe(200);
    const logo = res.body.logo;
    expect(logo).toMatchObject({ type: 'image/png', width: 64, height: 32 });
    expect(await p.client.call('getBrand')).toMatchObject({ logo });
    expect((await p.client.call('listWorkspaces'))[0].brand).toEqual({ name: null, hasLogo: true });

    const got = await getLogo(p, logo.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('etag')).toBe(logo.etag);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.bytes.length).toBe(logo.bytes);
    expect((await sharp(got.bytes).metadata()).format).toBe('png');
    const again = await getLogo(p, logo.url, { 'if-none-match': logo.etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect((await getLogo(p, logo.url, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('takes each type at 256 KB and refuses a byte more, 422 file saying which limit', async () => {
    const p = await platform.person({ plan: 'pro' });
    for (const kind of ['png', 'jpeg', 'webp'] as const) {
      const atLimit = await imageOfLength(kind, 256 * 1024);
      const ok = await putLogo(p, atLimit);
      expect(ok.status).toBe(200);
      expect(ok.body.logo.type).toBe(`image/${kind}`);
      const over = await putLogo(p, Buffer.concat([atLimit, Buffer.from([0])]));
      expect(over.status).toBe(422);
      expect(over.body).toEqual({
        error: 'refused: file',
        reason: 'file',
        detail: 'the logo: the image is 262145 bytes; at most 262144 are taken',
      });
    }
  }, 30_000);

  it('refuses sizes past the limits, a fake PNG, a bomb, and keeps the logo it had', async () => {
    const p = await platform.person({ plan: 'pro' });
    const first = (await putLogo(p, await plainImage('webp', 2048, 256))).body.logo;
    const cases: [Buffer, RegExp][] = [
      [await plainImage('png', 15, 40), /at least 16 pixels/],
      [await plainImage('jpeg', 2049, 300), /at most 2048 pixels/],
      [await plainImage('png', 16, 129), /at most 8 times/],
      [fakePng(), /not an image of type/],
      [Buffer.from('GIF89a'), /not an image of type/],
      [pngBomb(60_000), /60000×60000 pixels/],
    ];
    for (const [bytes, words] of cases) {
      const res = await putLogo(p, bytes);
      expect(res.status).toBe(422);
      expect(res.body.reason).toBe('file');
      expect(res.body.detail).toMatch(words);
    }
    expect((await p.client.call('getBrand')).logo).toEqual(first);
  });

  it('answers 411 without a Content-Length', async () => {
    const p = await platform.person({ plan: 'pro' });
    const bytes = await plainImage('png', 32, 32);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    });
    const res = await fetch(`${platform.baseUrl}/api/brand/logo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${p.token}` },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(411);
  });

  it('stores a JPEG without its EXIF GPS position', async () => {
    const p = await platform.person({ plan: 'pro' });
    const res = await putLogo(p, await jpegWithGps(), 'image/jpeg');
    expect(res.status).toBe(200);
    const got = await getLogo(p, res.body.logo.url);
    expect((await sharp(got.bytes).metadata()).exif).toBeUndefined();
    expect(got.bytes.includes(Buffer.from('PhoneCo'))).toBe(false);
  });

  it('replaces and removes it, deleting the stored bytes; 404 to those outside the workspace', async () => {
    const p = await platform.person({ plan: 'pro' });
    const first = (await putLogo(p, await plainImage('png', 40, 40))).body.logo;
    const second = (await putLogo(p, await plainImage('png', 80, 40))).body.logo;
    expect(second.etag).not.toBe(first.etag);
    expect(second.url).toBe(first.url);
    expect((await getLogo(p, second.url)).headers.get('etag')).toBe(second.etag);
    const prefix = `logos/${second.url.split('/')[3]}/`;
    expect(await platform.deps.storage.list(prefix)).toHaveLength(1);

    const stranger = await platform.person({ plan: 'pro' });
    expect((await getLogo(stranger, second.url)).status).toBe(404);
    expect((await getLogo(p, '/api/workspaces/not-a-workspace/logo')).status).toBe(404);

    expect((await p.client.call('removeLogo')).logo).toBeNull();
    expect(await platform.deps.storage.list(prefix)).toHaveLength(0);
    expect((await getLogo(p, second.url)).status).toBe(404);
    expect((await p.client.call('removeLogo')).logo).toBeNull();
  });
});
