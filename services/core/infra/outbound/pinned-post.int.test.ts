import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsReceiver, type HttpsReceiver } from '../../../../test/support/https-receiver.js';
import { EXCERPT_BYTES, postPinned, type PinnedPostOptions } from './pinned-post.js';

// The outbound client against a real HTTPS receiver on loopback: what it refuses without the
// local-development setting, and how it treats redirects, slow answers and long bodies with it.

let receiver: HttpsReceiver;
let base: PinnedPostOptions;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  base = {
    headers: { 'content-type': 'application/json' },
    body: '{}',
    allowPrivate: true,
    connectTimeoutMs: 2_000,
    responseTimeoutMs: 500,
    extraCa: await readFile(receiver.caFile, 'utf8'),
  };
});
afterAll(() => receiver.close());

describe('postPinned', () => {
  it('delivers over https to a trusted receiver when local development allows it', async () => {
    const out = await postPinned(receiver.url('/ok'), base);
    expect(out).toMatchObject({ ok: true, statusCode: 200, error: null, bodyExcerpt: 'answered 200' });
    expect(receiver.received('/ok')).toHaveLength(1);
  });

  it('connects by name to the address it resolved, checking the certificate against the name', async () => {
    const out = await postPinned(`https://localhost:${receiver.port}/by-name-ok`, base);
    expect(out).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.received('/by-name-ok')).toHaveLength(1);
  });

  it('refuses private, loopback and link-local targets, by literal or by name, without connecting', async () => {
    const strict = { ...base, allowPrivate: false };
    for (const url of [
      receiver.url('/private'),
      `https://10.0.0.1:${receiver.port}/private`,
      `https://[::1]:${receiver.port}/private`,
      `https://169.254.169.254/private`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/private`,
      `http://example.com/private`,
    ]) {
      const out = await postPinned(url, strict);
      expect(out.ok, url).toBe(false);
      expect(out.statusCode, url).toBeNull();
      expect(out.error, url).toMatch(/^refused: /);
    }
    expect(receiver.received('/private')).toHaveLength(0);
  });

  it('refuses a name that resolves to loopback at send time (DNS checked per delivery)', async () => {
    for (const host of ['localhost']) {
      const out = await postPinned(`https://${host}:${receiver.port}/by-name`, { ...base, allowPrivate: false });
      expect(out.error, host).toMatch(/resolves to a private/);
    }
    expect(receiver.received('/by-name')).toHaveLength(0);
  });

  it('follows no redirect: a 3xx is a failure and its target is never asked', async () => {
    receiver.answer('/moved', () => ({ status: 302, headers: { location: receiver.url('/target') } }));
    const out = await postPinned(receiver.url('/moved'), base);
    expect(out).toMatchObject({ ok: false, statusCode: 302, error: 'redirect (not followed)' });
    expect(receiver.received('/target')).toHaveLength(0);
  });

  it('gives up on an answer slower than the response timeout', async () => {
    receiver.answer('/slow', () => ({ status: 200, delayMs: 3_000 }));
    const out = await postPinned(receiver.url('/slow'), base);
    expect(out).toMatchObject({ ok: false, statusCode: null, error: 'timeout' });
  });

  it('keeps at most a KiB of the answer', async () => {
    receiver.answer('/long', () => ({ status: 500, body: 'x'.repeat(200_000) }));
    const out = await postPinned(receiver.url('/long'), base);
    expect(out).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
    expect(out.bodyExcerpt?.length).toBe(EXCERPT_BYTES);
  });

  it('does not trust the self-signed receiver without its certificate', async () => {
    const out = await postPinned(receiver.url('/untrusted'), { ...base, extraCa: undefined });
    expect(out.ok).toBe(false);
    expect(out.error).toMatch(/connection failed/);
  });
});
