// Multipart operations s3rver 3.7 lacks, answered by s3-server.mjs from s3rver's own upload
// folders (its filesystem store keeps each open multipart upload at
// <bucket>/._S3rver_uploads/<upload id>/ with the files `key`, `metadata`, and `<n>` + `<n>.md5`
// per part). Nothing here stores bytes: s3rver still takes the parts and assembles them.
// - AbortMultipartUpload (s3rver: 405): the sweep aborts abandoned direct uploads.
// - ListMultipartUploads and ListParts (s3rver: 501 and 405): Distribution's s3 driver calls both
//   on every blob upload it resumes (the PUT that ends a push), so without them the registry
//   cannot keep its blobs in this store (docs/decisions.md, "registry blobs in the S3 store").
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';

const uploadIdPattern = /^[0-9a-f]{32}$/;

/** The upload folders' root of `bucket` in s3rver's filesystem store. */
const uploadsOf = (store, bucket) => store.getResourcePath(bucket, undefined, 'uploads');

/** DELETE /<bucket>/<key>?uploadId=: drops the upload's folder (one already gone is fine, as in S3). */
export async function abortMultipart(store, bucket, uploadId) {
  if (!uploadIdPattern.test(uploadId)) return noSuchUpload();
  await rm(path.join(uploadsOf(store, bucket), uploadId), { recursive: true, force: true });
  return { status: 204, body: '' };
}

/**
 * GET /<bucket>?uploads[&prefix=]: the open uploads whose key starts with the prefix, in key
 * order, all in one page (a local store holds few at once; IsTruncated is always false).
 */
export async function listMultipartUploads(store, bucket, prefix = '') {
  const root = uploadsOf(store, bucket);
  const ids = await readdir(root).catch((error) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
  const uploads = [];
  for (const id of ids.filter((name) => uploadIdPattern.test(name))) {
    const key = await readFile(path.join(root, id, 'key'), 'utf8').catch(() => null);
    if (key === null || !key.startsWith(prefix)) continue; // one completed or aborted meanwhile
    const { birthtime } = await stat(path.join(root, id));
    uploads.push({ key, id, initiated: birthtime });
  }
  uploads.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
  const body = xml('ListMultipartUploadsResult', [
    tag('Bucket', bucket),
    tag('KeyMarker', ''),
    tag('UploadIdMarker', ''),
    tag('Prefix', prefix),
    tag('MaxUploads', 1000),
    tag('IsTruncated', false),
    ...uploads.map(
      (u) =>
        `<Upload>${tag('Key', u.key)}${tag('UploadId', u.id)}${tag('Initiated', u.initiated.toISOString())}${tag('StorageClass', 'STANDARD')}</Upload>`,
    ),
  ]);
  return { status: 200, body };
}

/** GET /<bucket>/<key>?uploadId=: the parts received so far, in part order, all in one page. */
export async function listParts(store, bucket, key, uploadId) {
  if (!uploadIdPattern.test(uploadId)) return noSuchUpload();
  const dir = path.join(uploadsOf(store, bucket), uploadId);
  const owner = await readFile(path.join(dir, 'key'), 'utf8').catch(() => null);
  if (owner !== key) return noSuchUpload();
  const numbers = (await readdir(dir)).filter((name) => /^\d{1,5}$/.test(name)).map(Number);
  numbers.sort((a, b) => a - b);
  const parts = [];
  for (const number of numbers) {
    const [{ size, mtime }, md5] = await Promise.all([
      stat(path.join(dir, String(number))),
      readFile(path.join(dir, `${number}.md5`), 'utf8').catch(() => null),
    ]);
    if (md5 === null) continue; // still being received: s3rver writes the md5 once the part is whole
    parts.push(
      `<Part>${tag('PartNumber', number)}${tag('LastModified', mtime.toISOString())}${tag('ETag', `"${md5}"`)}${tag('Size', size)}</Part>`,
    );
  }
  const body = xml('ListPartsResult', [
    tag('Bucket', bucket),
    tag('Key', key),
    tag('UploadId', uploadId),
    tag('PartNumberMarker', 0),
    tag('MaxParts', 1000),
    tag('IsTruncated', false),
    ...parts,
  ]);
  return { status: 200, body };
}

function noSuchUpload() {
  return { status: 404, error: { code: 'NoSuchUpload', message: 'The specified upload does not exist' } };
}

function xml(root, children) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${children.join('')}</${root}>`;
}

function tag(name, value) {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function escapeXml(text) {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * GET /<bucket>?delimiter=…: a listing with a delimiter, answered here for both list types.
 * s3rver's own stops walking folders below the first delimiter, so a key two folders under the
 * prefix gives no common prefix at all (Distribution's walk of `repositories/` found nothing, and
 * garbage-collect stopped at "Path not found"); and its KeyCount leaves out the common prefixes,
 * which Distribution counts on. Here every key under the prefix is listed (s3rver's listing
 * without a delimiter), then grouped as S3 groups them, keys and prefixes in one order, at most
 * max-keys of them; the continuation token (or v1 marker) is the last key or prefix given.
 */
export async function listWithDelimiter(store, bucket, query) {
  const v2 = query.get('list-type') === '2';
  const delimiter = query.get('delimiter');
  const prefix = query.get('prefix') ?? '';
  const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000) || 1000, 1000);
  const after = v2
    ? query.has('continuation-token')
      ? Buffer.from(query.get('continuation-token'), 'base64url').toString('utf8')
      : (query.get('start-after') ?? '')
    : (query.get('marker') ?? '');
  const { objects } = await store.listObjects(bucket, { prefix, maxKeys: Infinity });
  const entries = []; // { key } or { prefix }, in key order
  for (const object of objects) {
    const rest = object.key.slice(prefix.length);
    const at = rest.indexOf(delimiter);
    if (at === -1) {
      if (object.key > after) entries.push({ object });
      continue;
    }
    const common = prefix + rest.slice(0, at + delimiter.length);
    if (common > after && !after.startsWith(common) && entries.at(-1)?.prefix !== common) entries.push({ prefix: common });
  }
  const page = entries.slice(0, maxKeys);
  const truncated = entries.length > maxKeys;
  const last = page.at(-1);
  const next = truncated ? (last.prefix ?? last.object.key) : null;
  const body = xml('ListBucketResult', [
    tag('Name', bucket),
    tag('Prefix', prefix),
    tag('Delimiter', delimiter),
    tag('MaxKeys', maxKeys),
    tag('IsTruncated', truncated),
    ...(v2
      ? [
          tag('KeyCount', page.length),
          ...(query.has('continuation-token') ? [tag('ContinuationToken', query.get('continuation-token'))] : []),
          ...(next ? [tag('NextContinuationToken', Buffer.from(next).toString('base64url'))] : []),
        ]
      : [tag('Marker', after), ...(next ? [tag('NextMarker', next)] : [])]),
    ...page.map((entry) =>
      entry.prefix !== undefined
        ? `<CommonPrefixes>${tag('Prefix', entry.prefix)}</CommonPrefixes>`
        : `<Contents>${tag('Key', entry.object.key)}${tag('LastModified', entry.object.lastModifiedDate.toISOString())}${tag('ETag', entry.object.metadata.etag)}${tag('Size', entry.object.size)}${tag('StorageClass', 'STANDARD')}</Contents>`,
    ),
  ]);
  return { status: 200, body };
}
