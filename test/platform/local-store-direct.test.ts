// The local object store's direct answers (infra/local/s3-direct.mjs, s3-small-files.mjs): the
// operations the registry makes most, answered without s3rver's pipeline and with small files
// read and written in place, answer what s3rver answers and leave the same files on disk. Two real
// stores side by side, one of them s3rver alone (S3_DIRECT=0), given the same requests through
// the AWS SDK; small objects (written whole) and large ones (streamed) both.
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { smallFilesInPlace } from '../../infra/local/s3-small-files.mjs';

const require = createRequire(import.meta.url);
const FilesystemStore = require('s3rver/lib/stores/filesystem.js');
const S3Object = require('s3rver/lib/models/object.js');
interface StoreMethods {
  putBucket(name: string): Promise<unknown>;
  putObject(object: unknown): Promise<{ size: number; md5: string }>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}

const BUCKET = 'registry';
const SMALL = Buffer.from('{"architecture":"amd64","os":"linux"}\n');
const LARGE = randomBytes(300 * 1024); // above s3-small-files.mjs's SMALL_BYTES: streamed

interface Store {
  dir: string;
  child: ChildProcess;
  s3: S3Client;
}
let direct: Store;
let s3rverAlone: Store;

async function startStore(env: Record<string, string>): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'local-store-direct-'));
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', join(import.meta.dirname, '../../infra/local/s3-server.mjs'), dir, '0', BUCKET],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (line: Buffer) => {
      const bound = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line.toString());
      if (bound) resolve(Number(bound[1]));
    });
    child.on('exit', (code) => reject(new Error(`the store exited (${code})`)));
  });
  const s3 = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, // the local store's keys (infra/local/s3.mjs)
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { dir, child, s3 };
}

beforeAll(async () => {
  [direct, s3rverAlone] = await Promise.all([startStore({}), startStore({ S3_DIRECT: '0' })]);
});

afterAll(async () => {
  for (const store of [direct, s3rverAlone]) {
    store?.child.kill();
    if (store) await rm(store.dir, { recursive: true, force: true });
  }
});

/** The same call on both stores: their answers (or their refusals' codes), side by side. */
async function both<T>(call: (s3: S3Client) => Promise<T>): Promise<[T | string, T | string]> {
  const answer = (s3: S3Client) => call(s3).catch((err: { name?: string }) => `refused: ${err.name}`);
  return [await answer(direct.s3), await answer(s3rverAlone.s3)];
}

/** An answer's headers and body as an object (GetObject's and HeadObject's outputs alike). */
type Answer = Record<string, unknown> & { Body?: { transformToByteArray(): Promise<Uint8Array> } };

/** What a GET or HEAD tells, without the parts that are times or request ids. */
async function told(answer: object | string) {
  if (typeof answer === 'string') return answer;
  const a = answer as Answer;
  return {
    etag: a.ETag,
    length: a.ContentLength,
    range: a.ContentRange,
    type: a.ContentType,
    cache: a.CacheControl,
    meta: a.Metadata,
    ranges: a.AcceptRanges,
    body: a.Body
      ? createHash('sha256')
          .update(await a.Body.transformToByteArray())
          .digest('hex')
      : undefined,
  };
}

const put = (Key: string, Body: Buffer) => (s3: S3Client) =>
  s3.send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key,
      Body,
      ContentType: 'application/json',
      CacheControl: 'no-store',
      Metadata: { from: 'test' },
    }),
  );

it('stores and answers objects, whole and in ranges, as s3rver does', async () => {
  for (const [key, body] of [
    ['docker/registry/v2/blobs/sha256/aa/small/data', SMALL],
    ['docker/registry/v2/blobs/sha256/bb/large/data', LARGE],
  ] as const) {
    const [a, b] = await both(put(key, body));
    expect((a as { ETag: string }).ETag).toBe((b as { ETag: string }).ETag);
    for (const Range of [undefined, 'bytes=0-', 'bytes=5-', 'bytes=2-9', `bytes=${body.length - 3}-`, `bytes=${body.length + 10}-`]) {
      const [got, gotAlone] = await both((s3) => s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range })));
      expect(await told(got), `GET ${key} ${Range}`).toEqual(await told(gotAlone));
      const [head, headAlone] = await both((s3) => s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, Range })));
      expect(await told(head), `HEAD ${key} ${Range}`).toEqual(await told(headAlone));
    }
  }
  const [missing, missingAlone] = await both((s3) => s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'not/there' })));
  expect(missing).toBe('refused: NoSuchKey');
  expect(missingAlone).toBe(missing);
  const [head, headAlone] = await both((s3) => s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'not/there' })));
  expect(head).toBe(headAlone);
  const [noBucket, noBucketAlone] = await both((s3) => s3.send(new GetObjectCommand({ Bucket: 'other', Key: 'x' })));
  expect(noBucket).toBe('refused: NoSuchBucket');
  expect(noBucketAlone).toBe(noBucket);
});

it('copies, lists and deletes as s3rver does, and leaves the same files on disk', async () => {
  const root = 'docker/registry/v2/repositories/w/p/_uploads/u1';
  for (const [key, body] of [
    [`${root}/startedat`, Buffer.from('2026-12-02T12:00:00Z')],
    [`${root}/hashstates/sha256/0`, SMALL],
    [`${root}/data`, LARGE],
    ['docker/registry/v2/repositories/w/p/_layers/sha256/cc/link', Buffer.from('sha256:cc')],
  ] as const)
    await both(put(key, body));
  for (const [from, to] of [
    [`${root}/hashstates/sha256/0`, 'docker/registry/v2/blobs/sha256/cc/small-copy/data'],
    [`${root}/data`, 'docker/registry/v2/blobs/sha256/dd/large-copy/data'],
    ['not/there', 'x/y'],
  ]) {
    const [copied, copiedAlone] = await both((s3) =>
      s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: to, CopySource: `${BUCKET}/${from}` })),
    );
    expect(typeof copied === 'string' ? copied : copied.CopyObjectResult?.ETag).toBe(
      typeof copiedAlone === 'string' ? copiedAlone : copiedAlone.CopyObjectResult?.ETag,
    );
  }
  // Distribution's Stat (one key of a prefix), its Delete's listing, and a page after a marker.
  for (const query of [
    { Prefix: `${root}/data`, MaxKeys: 1 },
    { Prefix: 'docker/registry/v2/repositories/w/p/', MaxKeys: 1 },
    { Prefix: `${root}` },
    { Prefix: 'docker/', Marker: `${root}/data` },
    { Prefix: 'nothing/' },
  ]) {
    const [listed, listedAlone] = await both((s3) => s3.send(new ListObjectsCommand({ Bucket: BUCKET, ...query })));
    const shape = (l: typeof listed) =>
      typeof l === 'string' ? l : { truncated: l.IsTruncated, keys: (l.Contents ?? []).map((o) => [o.Key, o.Size, o.ETag]) };
    expect(shape(listed), JSON.stringify(query)).toEqual(shape(listedAlone));
  }
  const Objects = [`${root}/startedat`, `${root}/hashstates/sha256/0`, `${root}/data`, `${root}/never`].map((Key) => ({ Key }));
  const [deleted, deletedAlone] = await both((s3) => s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects } })));
  const keys = (d: typeof deleted) => (typeof d === 'string' ? d : (d.Deleted ?? []).map((o) => o.Key).sort());
  expect(keys(deleted)).toEqual(keys(deletedAlone));
  expect(await filesOf(direct.dir)).toEqual(await filesOf(s3rverAlone.dir));
});

it('completes a multipart upload as s3rver does', async () => {
  for (const body of [SMALL, LARGE]) {
    const Key = `docker/registry/v2/repositories/w/p/_uploads/${body.length}/data`;
    const [etag, etagAlone] = await both(async (s3) => {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key }));
      const part = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key, UploadId, PartNumber: 1, Body: body }));
      const done = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key,
          UploadId,
          MultipartUpload: { Parts: [{ ETag: part.ETag, PartNumber: 1 }] },
        }),
      );
      return done.ETag;
    });
    expect(etag).toBe(etagAlone);
    const [got, gotAlone] = await both((s3) => s3.send(new GetObjectCommand({ Bucket: BUCKET, Key })));
    expect(await told(got)).toEqual(await told(gotAlone));
  }
  const [unknown, unknownAlone] = await both((s3) =>
    s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'x',
        UploadId: 'f'.repeat(32),
        MultipartUpload: { Parts: [{ ETag: '"00"', PartNumber: 1 }] },
      }),
    ),
  );
  // S3 answers NoSuchUpload; s3rver alone failed on the missing folder (a 500).
  expect(unknown).toBe('refused: NoSuchUpload');
  expect(unknownAlone).toMatch(/^refused: /);
});

it("answers a large object's PUT only once the store holds all of it: a HEAD right after finds it whole", async () => {
  // The api checks each upload so (uploads.service.ts); s3rver answered before its file had the last bytes.
  const body = randomBytes(48 * 1024 * 1024);
  for (let round = 0; round < 3; round++) {
    const Key = `uploads/whole-${round}`;
    await direct.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: body, ContentLength: body.length }));
    const head = await direct.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key }));
    expect(head.ContentLength).toBe(body.length);
  }
  // The store's own promise, with no request in between: its file is whole when the put settles.
  const dir = await mkdtemp(join(tmpdir(), 'local-store-whole-'));
  try {
    const store = new FilesystemStore(dir) as StoreMethods;
    smallFilesInPlace(store);
    await store.putBucket(BUCKET);
    for (let round = 0; round < 5; round++) {
      const chunks = Array.from({ length: 64 }, () => randomBytes(256 * 1024));
      const { size } = await store.putObject(new S3Object(BUCKET, `whole/${round}`, Readable.from(chunks), {}));
      expect(size).toBe(64 * 256 * 1024);
      expect(statSync(store.getResourcePath(BUCKET, `whole/${round}`, 'object')).size).toBe(size);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('refuses a DeleteObjects of more than 1,000 keys, and deletes none of them', async () => {
  const Key = 'docker/registry/v2/blobs/sha256/ff/kept/data';
  await direct.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: SMALL }));
  const Objects = [{ Key }, ...Array.from({ length: 1000 }, (_, i) => ({ Key: `never/${i}` }))];
  await expect(direct.s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects } }))).rejects.toMatchObject({
    name: 'MalformedXML',
  });
  const kept = await direct.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key }));
  expect(kept.ContentLength).toBe(SMALL.length);
});

it('refuses a small body whose Content-MD5 differs, and keeps the object it would have replaced', async () => {
  const Key = 'docker/registry/v2/blobs/sha256/ee/kept/data';
  await direct.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: SMALL }));
  const wrong = createHash('md5').update('something else').digest('base64');
  await expect(
    direct.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: LARGE.subarray(0, 100), ContentMD5: wrong })),
  ).rejects.toMatchObject({
    name: 'BadDigest',
  });
  const kept = await direct.s3.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
  expect(Buffer.from(await kept.Body!.transformToByteArray())).toEqual(SMALL);
});

/** Every file under the bucket but the open uploads' bookkeeping: its path and its bytes' digest (metadata JSON, MD5s and objects alike). */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(join(dir, BUCKET), { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || path.includes('._S3rver_uploads')) continue;
    files[relative(dir, path)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return files;
}
