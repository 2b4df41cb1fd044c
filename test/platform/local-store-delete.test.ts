// The local object store deletes many keys of one folder at once (infra/local/s3-delete.mjs):
// DeleteObjects of an upload's files, as Distribution sends after every blob it receives, answers
// 200 at the first try and leaves no empty folder; s3rver's own clean-up raced its siblings up the
// same folders and answered 500. Real store (the test services' S3 endpoint), no retries.
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { testEnv } from '../support/services.js';

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
