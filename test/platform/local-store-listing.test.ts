// The local object store's listings (infra/local/s3-listing.mjs, s3-multipart.mjs): the walk from
// the prefix's folder answers what s3rver's own walk from the bucket's root answers, for every
// prefix, delimiter, page size and start; open uploads are listed from a cache of their keys that
// follows uploads opened and closed since.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFromPrefixFolder } from '../../infra/local/s3-listing.mjs';
import { listMultipartUploads } from '../../infra/local/s3-multipart.mjs';

const require = createRequire(import.meta.url);
const FilesystemStore = require('s3rver/lib/stores/filesystem.js');
const S3Object = require('s3rver/lib/models/object.js');

type Listed = { objects: { key: string; size: number }[]; commonPrefixes: string[]; isTruncated: boolean };
interface Store {
  putObject(object: unknown): Promise<unknown>;
  putBucket(name: string): Promise<unknown>;
  listObjects(bucket: string, options: object): Promise<Listed>;
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
}

const BUCKET = 'listing';
let dir: string;
let s3rverOwn: Store;
let rooted: Store;

const KEYS = [
  'top',
  'topper',
  'a/one',
  'a/two',
  'a/b/three',
  'a/b/c/four',
  'ab/five',
  'docker/registry/v2/repositories/w/p/_layers/sha256/aa/link',
  'docker/registry/v2/repositories/w/p/_manifests/revisions/sha256/bb/link',
  // a folder of many, as the registry's blobs/sha256/ holds
  ...Array.from({ length: 300 }, (_, i) => `docker/registry/v2/blobs/sha256/${i.toString(16).padStart(2, '0')}/${i}/data`),
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-store-'));
  s3rverOwn = new FilesystemStore(dir) as Store;
  rooted = new FilesystemStore(dir) as Store;
  listFromPrefixFolder(rooted);
  await s3rverOwn.putBucket(BUCKET);
  for (const key of KEYS) await s3rverOwn.putObject(new S3Object(BUCKET, key, Buffer.from(key), {}));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const shape = (listed: Listed) => ({
  keys: listed.objects.map((o) => [o.key, o.size]),
  prefixes: listed.commonPrefixes,
  truncated: listed.isTruncated,
});

describe('the local store lists from the prefix folder', () => {
  const prefixes = [
    '',
    't',
    'top',
    'a',
    'a/',
    'a/b',
    'a/b/',
    'ab',
    'docker/registry/v2/blobs/sha256/',
    'docker/registry/v2/blobs/sha256/1',
    'docker/registry/v2/blobs/sha256/1f/31/',
    'docker/registry/v2/repositories/',
    'none/',
    'none',
    // not plain paths: walked from the bucket as s3rver walks, never from outside it
    '../',
    '../../etc/',
    'a/../a/',
    'a//b',
    './a',
  ];
  for (const prefix of prefixes)
    it(`answers as s3rver does for the prefix "${prefix}"`, async () => {
      for (const delimiter of ['', '/'])
        for (const maxKeys of [1, 3, Number.POSITIVE_INFINITY])
          for (const startAfter of ['', 'a/b', 'docker/registry/v2/blobs/sha256/40/64/data']) {
            const options = { prefix, delimiter, maxKeys, startAfter };
            expect(shape(await rooted.listObjects(BUCKET, options)), JSON.stringify(options)).toEqual(
              shape(await s3rverOwn.listObjects(BUCKET, options)),
            );
          }
    });

  it('finds a blob among hundreds, and none where there is none', async () => {
    const found = await rooted.listObjects(BUCKET, { prefix: 'docker/registry/v2/blobs/sha256/2a/42/data', maxKeys: 1 });
    expect(found.objects.map((o) => o.key)).toEqual(['docker/registry/v2/blobs/sha256/2a/42/data']);
    expect((await rooted.listObjects(BUCKET, { prefix: 'docker/registry/v2/blobs/sha256/2a/43', maxKeys: 1 })).objects).toEqual([]);
  });
});

describe('open uploads are listed from their keys, read once', () => {
  const uploads = () => s3rverOwn.getResourcePath(BUCKET, undefined, 'uploads');
  const open = async (id: string, key: string) => {
    await mkdir(join(uploads(), id), { recursive: true });
    await writeFile(join(uploads(), id, 'key'), key);
  };
  const listed = async (prefix: string) =>
    [...(await listMultipartUploads(s3rverOwn, BUCKET, prefix)).body.matchAll(/<UploadId>([0-9a-f]+)<\/UploadId>/g)].map((m) => m[1]);
  const id = (n: number) => n.toString(16).padStart(32, '0');

  it('follows uploads opened and closed between listings', async () => {
    for (let n = 1; n <= 50; n++) await open(id(n), `repo/_uploads/${n}/data`);
    expect(await listed('repo/_uploads/7/')).toEqual([id(7)]);
    expect((await listed('repo/')).length).toBe(50);
    await rm(join(uploads(), id(7)), { recursive: true });
    await open(id(51), 'repo/_uploads/7/data');
    expect(await listed('repo/_uploads/7/')).toEqual([id(51)]);
    expect(await listed('other/')).toEqual([]);
  });

  it('leaves out an upload whose key is not written yet, and lists it once it is', async () => {
    // s3rver opens an upload's folder before it writes the key in it: a listing between the two sees a folder alone.
    await mkdir(join(uploads(), id(60)), { recursive: true });
    expect(await listed('repo/_uploads/60/')).toEqual([]);
    await writeFile(join(uploads(), id(60), 'key'), 'repo/_uploads/60/data');
    expect(await listed('repo/_uploads/60/')).toEqual([id(60)]);
  });
});
