// The local object store deletes many keys of one folder at once (infra/local/s3-delete.mjs):
// DeleteObjects of an upload's files, as Distribution sends after every blob it receives, answers
// 200 at the first try and leaves no empty folder; s3rver's own clean-up raced its siblings up the
// same folders and answered 500. Real store (the test services' S3 endpoint), no retries.
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { tolerantDeletes } from '../../infra/local/s3-delete.mjs';
import { testEnv } from '../support/services.js';

const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js');

const env = testEnv();
const s3 = new S3Client({
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
  // A 500 must show: the SDK's retry would hide it.
  maxAttempts: 1,
});
const Bucket = env.S3_BUCKET;

it("deletes an upload folder's keys in one DeleteObjects at the first try, and the emptied folders with them", async () => {
  const root = `delete-race/${randomUUID()}`;
  for (let round = 0; round < 5; round++) {
    const upload = `${root}/_uploads/${round}`;
    const keys = [`${upload}/data`, `${upload}/startedat`, `${upload}/hashstates/sha256/0`, `${upload}/hashstates/sha256/1`];
    const kept = `${root}/_layers/${round}/link`;
    for (const Key of [...keys, kept]) await s3.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
    const answer = await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    expect(answer.Deleted?.map((d) => d.Key).sort()).toEqual([...keys].sort());
    const left = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: `${root}/` }));
    expect(left.Contents?.map((o) => o.Key).sort()).toEqual(Array.from({ length: round + 1 }, (_, i) => `${root}/_layers/${i}/link`));
  }
  // The upload folders went with their last keys; the folder beside them stays.
  const folders = await readdir(join(env.DATA_DIR, 's3', Bucket, root));
  expect(folders).toEqual(['_layers']);
});

it('deletes nothing outside the bucket for a key whose parts lead out of it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'local-store-delete-'));
  try {
    const store = new FilesystemStore(root) as {
      putBucket(name: string): Promise<unknown>;
      deleteObject(b: string, k: string): Promise<void>;
    };
    tolerantDeletes(store);
    await store.putBucket('inside');
    // Beside the bucket: an object's files as s3rver names them, and an empty folder.
    await mkdir(join(root, 'outside', 'empty'), { recursive: true });
    await writeFile(join(root, 'outside', 'x._S3rver_object'), "not the bucket's");
    await store.deleteObject('inside', '../outside/x');
    await store.deleteObject('inside', '../outside/empty/y');
    expect((await readdir(join(root, 'outside'))).sort()).toEqual(['empty', 'x._S3rver_object']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
