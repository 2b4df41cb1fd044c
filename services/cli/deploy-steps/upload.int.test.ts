import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@demo-rooms/contract';
import { flakyGateway, type GatewayFault } from '../../../test/support/flaky-gateway.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { uploadFile } from './upload.js';

// The CLI's PUT of an archive to the real api, through a gateway that fails the first try: a
// 503 from the gateway, or a connection cut half way. The CLI tries again, the api has put the
// upload back to `declared`, and the store ends up holding exactly the file. A refusal on the
// upload's merits (422) is not tried again.

let platform: Platform;
let dir: string;
beforeAll(async () => {
  platform = await startPlatform();
  dir = await mkdtemp(join(tmpdir(), 'upload-retry-'));
});
afterAll(async () => {
  await platform.close();
  await rm(dir, { recursive: true, force: true });
});

async function declaredUpload(size: number) {
  const { client, token } = await platform.person();
  const project = await client.call('createProject', { body: { slug: uniqueSlug('cup'), name: 'Upload' } });
  const bytes = randomBytes(size);
  const file = join(dir, `${project.id}.bin`);
  await writeFile(file, bytes);
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  return { token, bytes, file, uploadId, putUrl };
}

async function stored(uploadId: string): Promise<Buffer | null> {
  const object = await platform.deps.storage.get(`uploads/${uploadId}`);
  if (!object) return null;
  const back: Buffer[] = [];
  for await (const chunk of object.body) back.push(chunk as Buffer);
  return Buffer.concat(back);
}

/** Uploads through a gateway whose first PUT meets `first`; answers the retry lines and the bytes counted. */
async function throughGateway(up: Awaited<ReturnType<typeof declaredUpload>>, first: GatewayFault) {
  let puts = 0;
  const gateway = await flakyGateway(platform.baseUrl, (req) => (req.method === 'PUT' && puts++ === 0 ? first : 'pass'));
  const lines: string[] = [];
  let counted = 0;
  try {
    await uploadFile({
      apiUrl: gateway.origin,
      token: up.token,
      putUrl: up.putUrl,
      file: up.file,
      sizeBytes: up.bytes.length,
      onBytes: (n) => (counted += n),
      onRetry: (line) => lines.push(line),
    });
  } finally {
    await gateway.close();
  }
  return { lines, counted, puts };
}

describe('uploadFile', () => {
  it('tries again after a gateway answers 503, and the store holds the file whole', async () => {
    const up = await declaredUpload(3 * 1024 * 1024);
    const { lines, counted, puts } = await throughGateway(up, 'unavailable');
    expect(puts).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^upload: try 1 failed \(503 .+\); trying again$/)]);
    expect(counted).toBe(up.bytes.length);
    expect((await stored(up.uploadId))?.equals(up.bytes)).toBe(true);
  });

  it('tries again after a gateway answers 503 before the body is in, counting the bytes of the try that failed once', async () => {
    const up = await declaredUpload(3 * 1024 * 1024);
    const { lines, counted, puts } = await throughGateway(up, 'unavailable-at-once');
    expect(puts).toBe(2);
    // The 503, or the write it broke: which the client meets first is the kernel's race.
    expect(lines).toEqual([expect.stringMatching(/^upload: try 1 failed \(.+\); trying again$/)]);
    expect(counted).toBe(up.bytes.length);
    expect((await stored(up.uploadId))?.equals(up.bytes)).toBe(true);
  });

  it('tries again after the connection breaks half way, once the api has put the upload back', async () => {
    const up = await declaredUpload(8 * 1024 * 1024);
    const { lines, counted, puts } = await throughGateway(up, { breakAfter: 2 * 1024 * 1024 });
    expect(puts).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^upload: try 1 failed \(.+\); trying again$/);
    expect(counted).toBe(up.bytes.length);
    expect((await stored(up.uploadId))?.equals(up.bytes)).toBe(true);
  });

  it('does not try a refusal on its merits again: a second PUT of a received upload is 422 used, once', async () => {
    const up = await declaredUpload(64 * 1024);
    await throughGateway(up, 'pass');
    const again = await throughGateway(up, 'pass').catch((err: unknown) => err);
    expect(again).toBeInstanceOf(ApiError);
    expect((again as ApiError).status).toBe(422);
    expect((again as ApiError).body.reason).toBe('used');
  });
});
