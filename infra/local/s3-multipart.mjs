// Multipart operations s3rver 3.7 lacks, answered by s3-server.mjs from s3rver's own upload
// folders (its filesystem store keeps each open multipart upload at
// <bucket>/._S3rver_uploads/<upload id>/ with the files `key`, `metadata`, and `<n>` + `<n>.md5`
// per part). Nothing here stores bytes: s3rver still takes the parts and assembles them.
// - AbortMultipartUpload (s3rver: 405): the sweep aborts abandoned direct uploads.
// - ListMultipartUploads and ListParts (s3rver: 501 and 405): Distribution's s3 driver calls both
//   on every blob upload it resumes (the PUT that ends a push), so without them the registry
//   cannot keep its blobs in this store (docs/decisions/registry-and-images.md).
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3Error from 's3rver/lib/models/error.js';
import { bodyBytes, readIfThere, SMALL_BYTES } from './s3-small-files.mjs';

const uploadIdPattern = /^[0-9a-f]{32}$/;
/** S3's smallest part but the last (bytes). */
const minPartBytes = 5 * 1024 * 1024;

/** The upload folders' root of `bucket` in s3rver's filesystem store. */
const uploadsOf = (store, bucket) => store.getResourcePath(bucket, undefined, 'uploads');

/** DELETE /<bucket>/<key>?uploadId=: drops the upload's folder (one already gone is fine, as in S3). */
export async function abortMultipart(store, bucket, uploadId) {
  if (!uploadIdPattern.test(uploadId)) return noSuchUpload();
  rmSync(path.join(uploadsOf(store, bucket), uploadId), { recursive: true, force: true });
  return { status: 204, body: '' };
}

/**
 * An open upload's key never changes: read once per upload id, so a listing reads only the uploads
 * it has not seen. Distribution lists on every blob upload it finishes; uploads left open by
 * interrupted pushes pile up in a long-lived store (hundreds here), and reading every one's key
 * each time put 50-80 ms into each registry PUT.
 */
const keysOfUploads = new Map();

/**
 * GET /<bucket>?uploads[&prefix=]: the open uploads whose key starts with the prefix, in key
 * order, all in one page (a local store holds few at once; IsTruncated is always false).
 */
export async function listMultipartUploads(store, bucket, prefix = '') {
  const root = uploadsOf(store, bucket);
  const ids = readdirIfThere(root).filter((name) => uploadIdPattern.test(name));
  const known = keysOfUploads.get(root) ?? new Map();
  keysOfUploads.set(root, known);
  const open = new Set(ids);
  for (const id of known.keys()) if (!open.has(id)) known.delete(id);
  const uploads = [];
  for (const id of ids) {
    let key = known.get(id);
    if (key === undefined) {
      key = readIfThere(path.join(root, id, 'key'));
      if (key === undefined) continue; // completed or aborted meanwhile, or its key not written yet
      known.set(id, key);
    }
    if (!key.startsWith(prefix)) continue;
    const born = statSync(path.join(root, id), { throwIfNoEntry: false });
    if (born) uploads.push({ key, id, initiated: born.birthtime });
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
  const owner = readIfThere(path.join(dir, 'key')) ?? null;
  if (owner !== key) return noSuchUpload();
  // A part is whole once its MD5 is written (s3rver and assembleInPlace both write it last); its
  // bytes are in its own file, or placed in the upload's one file (`<n>.placed` holds the size).
  const numbers = readdirSync(dir)
    .filter((name) => /^\d{1,5}\.md5$/.test(name))
    .map((name) => Number.parseInt(name, 10));
  numbers.sort((a, b) => a - b);
  const parts = [];
  for (const number of numbers) {
    const md5 = readIfThere(path.join(dir, `${number}.md5`)) ?? null;
    const placed = numberIn(path.join(dir, `${number}.placed`));
    const own = statSync(path.join(dir, String(number)), { throwIfNoEntry: false }) ?? null;
    if (md5 === null || (placed === null && !own)) continue;
    const size = placed ?? own.size;
    const modified = (own ?? statSync(path.join(dir, `${number}.md5`))).mtime;
    parts.push(
      `<Part>${tag('PartNumber', number)}${tag('LastModified', modified.toISOString())}${tag('ETag', `"${md5}"`)}${tag('Size', size)}</Part>`,
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

/** An S3 XML answer's body. */
export function xml(root, children) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${children.join('')}</${root}>`;
}

export function tag(name, value) {
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

/**
 * Multipart uploads assembled where they land, so CompleteMultipartUpload moves no byte.
 * s3rver keeps each part in a file of its own and completes by reading all of them through an
 * MD5 into a new file: a 512 MB upload is written twice, and its completion took 2–8 s here where
 * S3 assembles without moving the bytes (docs/benchmarks.md). Here a part is written straight into
 * the upload's one file at its final offset, (number − 1) × the first part's size, which holds
 * when every part but the last has the first part's size (what S3 clients send, ours included);
 * completion is then a rename. A part that cannot be placed so (longer than the slot, or
 * come before any part that sets it) is kept in its own file as s3rver keeps it, and a completion whose parts do
 * not tile the file is assembled by copying, as before. The ETag is S3's own for a multipart
 * object (the MD5 of the parts' MD5s, then `-<count>`); a part missing, or whose ETag differs from
 * the one named, is refused as S3 refuses it (InvalidPart) and nothing is assembled.
 */
export function assembleInPlace(store) {
  const ownFile = store.putPart.bind(store);
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const dir = path.join(uploadsOf(store, bucket), uploadId);
    const number = Number(partNumber);
    const length = Number(content.headers?.['content-length']);
    // The slot is the first part's size; a part of another number that comes first sets it when
    // it is at least S3's 5 MiB minimum (so it is not the last part, and has the first's size).
    if (Number.isSafeInteger(length) && (number === 1 || length >= minPartBytes))
      try {
        writeFileSync(path.join(dir, 'slot'), String(length), { flag: 'wx' });
      } catch {
        // set by an earlier part, or the upload is gone (the part is then kept on its own, as s3rver keeps it)
      }
    const slot = numberIn(path.join(dir, 'slot'));
    if (!slot || !Number.isSafeInteger(length) || length > slot) return ownFile(bucket, uploadId, partNumber, content);
    rmSync(path.join(dir, String(number)), { force: true }); // an earlier try kept on its own
    closeSync(openSync(path.join(dir, 'assembled'), 'a')); // made if missing; never truncated
    const md5 = createHash('md5');
    let size = 0;
    if (length <= SMALL_BYTES) {
      // A small part (the registry's blobs are mostly config files and code layers): held whole and written in place.
      const bytes = await bodyBytes(content, SMALL_BYTES);
      md5.update(bytes);
      size = bytes.length;
      const fd = openSync(path.join(dir, 'assembled'), 'r+');
      try {
        writeSync(fd, bytes, 0, size, (number - 1) * slot);
      } finally {
        closeSync(fd);
      }
    } else
      await pipeline(
        content,
        async function* (chunks) {
          for await (const chunk of chunks) {
            md5.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(path.join(dir, 'assembled'), { flags: 'r+', start: (number - 1) * slot }),
      );
    const etag = md5.digest('hex');
    writeFileSync(path.join(dir, `${number}.placed`), String(size));
    writeFileSync(path.join(dir, `${number}.md5`), etag);
    return { size, md5: etag };
  };

  store.putObjectMultipart = async (bucket, uploadId, parts) => {
    const dir = path.join(uploadsOf(store, bucket), uploadId);
    const key = readFileSync(path.join(dir, 'key'), 'utf8');
    const metadata = JSON.parse(readFileSync(path.join(dir, 'metadata'), 'utf8'));
    const slot = numberIn(path.join(dir, 'slot'));
    const ordered = [...parts].sort((a, b) => a.number - b.number);
    const found = [];
    for (const part of ordered) {
      const md5 = readIfThere(path.join(dir, `${part.number}.md5`)) ?? null;
      if (md5 === null || md5 !== part.etag) throw invalidPart(part.number);
      const placed = numberIn(path.join(dir, `${part.number}.placed`));
      found.push({ number: part.number, md5, placed });
    }
    // In place when the parts are 1…n, all placed, each but the last exactly one slot long.
    const tiled = found.every((p, i) => p.number === i + 1 && p.placed !== null && (i === found.length - 1 || p.placed === slot));
    const objectPath = store.getResourcePath(bucket, key, 'object');
    mkdirSync(path.dirname(objectPath), { recursive: true });
    if (tiled) {
      const size = (found.length - 1) * slot + found.at(-1).placed;
      truncateSync(path.join(dir, 'assembled'), size); // a part sent but not named may lie past the end
      renameSync(path.join(dir, 'assembled'), objectPath);
    } else {
      const copying = path.join(dir, 'copying');
      for (const part of found) {
        const source =
          part.placed === null
            ? createReadStream(path.join(dir, String(part.number)), { highWaterMark: 4 << 20 })
            : part.placed === 0
              ? Readable.from([])
              : createReadStream(path.join(dir, 'assembled'), {
                  start: (part.number - 1) * slot,
                  end: (part.number - 1) * slot + part.placed - 1,
                  highWaterMark: 4 << 20,
                });
        await pipeline(source, createWriteStream(copying, { flags: 'a' }));
      }
      renameSync(copying, objectPath);
    }
    const etag = `${createHash('md5')
      .update(Buffer.from(found.map((p) => p.md5).join(''), 'hex'))
      .digest('hex')}-${found.length}`;
    await store.putMetadata(bucket, key, metadata, etag);
    rmSync(dir, { recursive: true, force: true });
    return { md5: etag, size: statSync(objectPath).size };
  };
}

function invalidPart(number) {
  return new S3Error('InvalidPart', `Part ${number} was not uploaded, or its ETag is not the one named`);
}

/** The number a bookkeeping file holds, or null when it is not there. */
function numberIn(file) {
  const text = readIfThere(file);
  return text === undefined ? null : Number(text);
}

/** A folder's names; none when it is not there. */
function readdirIfThere(dir) {
  try {
    return readdirSync(dir);
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}
