import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectUpload } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { tgz } from '../../../test/support/archives.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

// Uploads straight to the object store (issue 32), against the real local store, which checks
// each presigned URL's signature, length, type and expiry (infra/local/s3-sigv4.mjs).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const manifest = {
  kind: 'static' as const,
  name: 'Demo',
  output: 'dist',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
};
const site = { 'index.html': '<!doctype html><title>Home</title><h1>Direct</h1>' };

async function newProject() {
  const person = await platform.person();
  const project = await person.client.call('createProject', { body: { slug: uniqueSlug('du'), name: 'Demo' } });
  return { ...person, project };
}

/** PUTs bytes to a presigned URL as a client must: the signed type, the exact length. */
async function putTo(url: string, body: Buffer, contentType = 'application/octet-stream') {
  const res = await fetch(url, { method: 'PUT', body: Uint8Array.from(body), headers: { 'content-type': contentType } });
  return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
}

/** Each part's slice of the archive, PUT in order; answers the parts with their ETags. */
async function putParts(direct: DirectUpload, bytes: Buffer) {
  const done: { partNumber: number; etag: string }[] = [];
  let offset = 0;
  for (const part of direct.parts) {
    const put = await putTo(part.url, bytes.subarray(offset, offset + part.sizeBytes), direct.contentType);
    expect(put.status).toBe(200);
    done.push({ partNumber: part.partNumber, etag: put.etag! });
    offset += part.sizeBytes;
  }
  return done;
}

describe('direct uploads', () => {
  it('keeps the api PUT for a client that does not ask, and deploys a direct upload end to end', async () => {
    const { client, project } = await newProject();
    const bytes = await tgz(site);
    const old = await client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: bytes.length } });
    expect(old.direct).toBeUndefined();

    const started = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    const direct = started.direct!;
    expect(direct).toMatchObject({
      multipart: false,
      contentType: 'application/octet-stream',
      parts: [{ partNumber: 1, sizeBytes: bytes.length }],
    });
    expect(new URL(direct.parts[0]!.url).origin).toBe(new URL(platform.deps.config.S3_ENDPOINT!).origin);
    expect((await putTo(direct.parts[0]!.url, bytes)).status).toBe(200);
    expect(await client.call('completeUpload', { params: { uploadId: started.uploadId }, body: {} })).toEqual({
      uploadId: started.uploadId,
      sizeBytes: bytes.length,
    });
    expect((await refusal(client.call('completeUpload', { params: { uploadId: started.uploadId }, body: {} }))).body).toMatchObject({
      reason: 'used',
    });

    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId: started.uploadId, manifest } });
    const index = await platform.deps.storage.get(`builds/${build.id}/files/index.html`);
    expect(await new Response(index!.body as unknown as ReadableStream).text()).toBe(site['index.html']);
  });

  it('is refused by the store with another length, another type, no signature, or after expiry', async () => {
    const { client, project } = await newProject();
    const bytes = await tgz(site);
    const { uploadId, direct } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    const url = direct!.parts[0]!.url;
    const longer = await putTo(url, Buffer.concat([bytes, Buffer.from('x')]));
    expect(longer.status).toBe(403);
    expect(longer.text).toContain('SignatureDoesNotMatch');
    expect((await putTo(url, bytes.subarray(1))).status).toBe(403);
    expect((await putTo(url, bytes, 'text/html')).status).toBe(403);
    expect((await putTo(url.split('?')[0]!, bytes)).status).toBe(403);
    expect(await platform.deps.storage.head(`uploads/${uploadId}`)).toBeNull();

    // The same signing with a one-second life, used after it has passed.
    const short = await platform.deps.storage.presignPut(`uploads/${uploadId}`, {
      size: bytes.length,
      contentType: 'application/octet-stream',
      expiresIn: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const late = await putTo(short, bytes);
    expect(late.status).toBe(403);
    expect(late.text).toContain('Request has expired');
    expect(await platform.deps.storage.head(`uploads/${uploadId}`)).toBeNull();
    expect((await refusal(client.call('completeUpload', { params: { uploadId }, body: {} }))).body).toMatchObject({ reason: 'size' });
  });

  it('sends an archive over 8 MiB in parts, one retried after the store refused it, and builds it', async () => {
    const { client, project } = await newProject();
    const big = randomBytes(9 * 1024 * 1024); // random: gzip cannot shrink it under 8 MiB
    const bytes = await tgz({ ...site, 'big.bin': big });
    const { uploadId, direct } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    expect(direct!.multipart).toBe(true);
    expect(direct!.parts.map((p) => p.sizeBytes)).toEqual([8 * 1024 * 1024, bytes.length - 8 * 1024 * 1024]);

    // The first try of part 2 breaks off short: the store refuses it; the retry of that part alone passes.
    const second = direct!.parts[1]!;
    expect((await putTo(second.url, bytes.subarray(8 * 1024 * 1024, bytes.length - 10))).status).toBe(403);
    const parts = await putParts(direct!, bytes);
    await client.call('completeUpload', { params: { uploadId }, body: { parts } });
    expect((await platform.deps.storage.head(`uploads/${uploadId}`))?.size).toBe(bytes.length);

    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } });
    expect((await platform.deps.storage.head(`builds/${build.id}/files/big.bin`))?.size).toBe(big.length);
  });

  it('answers 422 size when the assembled parts are not the declared size, and nothing is built', async () => {
    const { client, project } = await newProject();
    const bytes = await tgz({ ...site, 'big.bin': randomBytes(9 * 1024 * 1024) });
    const { uploadId, direct } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    const first = direct!.parts[0]!;
    const put = await putTo(first.url, bytes.subarray(0, first.sizeBytes));
    const wrong = await refusal(
      client.call('completeUpload', { params: { uploadId }, body: { parts: [{ partNumber: 1, etag: put.etag! }] } }),
    );
    expect(wrong).toMatchObject({ status: 422, body: { reason: 'size' } });
    expect(await platform.deps.storage.head(`uploads/${uploadId}`)).toBeNull();

    const build = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } }));
    expect(build).toMatchObject({ status: 422, body: { reason: 'unfinished' } });
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });

  it("answers 404 for another workspace's upload, and leaves it as it was", async () => {
    const owner = await newProject();
    const stranger = await newProject();
    const bytes = await tgz(site);
    const { uploadId, direct } = await owner.client.call('startUpload', {
      params: { projectId: owner.project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    await putTo(direct!.parts[0]!.url, bytes);
    expect((await refusal(stranger.client.call('completeUpload', { params: { uploadId }, body: {} }))).status).toBe(404);
    expect((await owner.client.call('completeUpload', { params: { uploadId }, body: {} })).sizeBytes).toBe(bytes.length);
  });
});
