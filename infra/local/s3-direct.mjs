// The object operations the image registry makes most, answered straight from s3rver's
// filesystem store, without s3rver's Koa pipeline. Each request through that pipeline (its
// logger, router, website, CORS and authentication layers, the XML builder) cost this store's one
// thread 2-3 ms of CPU before and after the store's own file work, and Distribution makes about
// sixteen requests for every blob it receives (the upload resumed, the part, the completion, the
// hash state, four stats, the move as a copy and a delete, the link, the upload's folder listed and
// deleted): the two small blobs of a one-line redeploy waited 0.12-0.25 s on them, mostly in this
// thread (docs/scale.md, "Session 39"). Same store methods, same files, same answers: what an object
// is on disk and what s3rver answers for it do not change, only the layers in between go.
//
// A small object's GET and PUT (up to SMALL_BYTES) are held whole; a larger one streams through
// s3rver as before. Only the plain shapes are taken: a request signed in its header (a presigned URL's limits stay
// s3rver-side checks), with no conditional headers, no response overrides and no query beyond the
// operation's own. Anything else, and any bucket that does not exist, returns null and goes to
// s3rver as before. The signature is checked by s3-server.mjs before either.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { tag, xml } from './s3-multipart.mjs';
import { bodyBytes, SMALL_BYTES } from './s3-small-files.mjs';

const require = createRequire(import.meta.url);
const S3Object = require('s3rver/lib/models/object.js');
const S3Error = require('s3rver/lib/models/error.js');
const { capitalizeHeader } = require('s3rver/lib/utils.js');

/** A request with any of these is s3rver's: a condition, a body framed in aws-chunked, a website redirect (s3rver checks its form). */
const CONDITIONAL = /^(if-|x-amz-copy-source-if-|x-amz-decoded-content-length$|x-amz-website-redirect-location$)/;
/** DeleteObjects takes at most this many keys (S3's own limit). */
const MAX_DELETE_KEYS = 1000;
/** An XML request body (DeleteObjects, CompleteMultipartUpload) is held up to this many bytes. */
const MAX_XML_BODY = 2 * 1024 * 1024;

/**
 * The direct answer for this request, or null when s3rver should give it. The returned function
 * answers `res` itself (status, headers, body), reading `req`'s body when the operation has one.
 */
export function directOperation(store, req) {
  if (!req.headers.authorization || Object.keys(req.headers).some((name) => CONDITIONAL.test(name))) return null;
  if (/aws-chunked/.test(req.headers['content-encoding'] ?? '')) return null;
  const url = new URL(req.url ?? '/', 'http://local');
  const [, bucketPart = '', ...keyParts] = url.pathname.split('/');
  let bucket;
  let key;
  try {
    bucket = decodeURIComponent(bucketPart);
    key = decodeURIComponent(keyParts.join('/'));
  } catch {
    return null;
  }
  if (!bucket || key.split('/').some((part) => part === '..' || part === '.')) return null;
  const query = [...url.searchParams.keys()].filter((name) => name !== 'x-id');
  const only = (...names) => query.length === names.length && names.every((name) => url.searchParams.has(name));
  const method = req.method;

  if ((method === 'GET' || method === 'HEAD') && key && only() && /^(bytes=\d+-\d*)?$/.test(req.headers.range ?? ''))
    return inBucket(store, bucket, (res, fallBack) => getObject(store, bucket, key, req, res, fallBack));
  // Only a small object's PUT: a large one streams through s3rver as before (the api's uploads).
  if (method === 'PUT' && key && only() && !req.headers['x-amz-copy-source'] && isSmall(req.headers['content-length']))
    return inBucket(store, bucket, (res) => putObject(store, bucket, key, req, res));
  if (method === 'PUT' && key && only() && req.headers['x-amz-copy-source'] && req.headers['x-amz-metadata-directive'] !== 'REPLACE')
    return inBucket(store, bucket, (res) => copyObject(store, bucket, key, req, res));
  if (method === 'PUT' && key && only('partNumber', 'uploadId') && /^[1-9]\d{0,4}$/.test(url.searchParams.get('partNumber')))
    return inBucket(store, bucket, (res) => uploadPart(store, bucket, url.searchParams, req, res));
  if (method === 'POST' && key && only('uploads')) return inBucket(store, bucket, (res) => initiateUpload(store, bucket, key, req, res));
  if (method === 'POST' && key && only('uploadId'))
    return inBucket(store, bucket, (res) => completeUpload(store, bucket, key, url, req, res));
  if (method === 'POST' && !key && only('delete')) return inBucket(store, bucket, (res) => deleteObjects(store, bucket, req, res));
  const listing = !key && method === 'GET' && query.every((name) => ['prefix', 'max-keys', 'marker'].includes(name));
  if (listing && /^(\d{1,10})?$/.test(url.searchParams.get('max-keys') ?? ''))
    return inBucket(store, bucket, (res) => listObjects(store, bucket, url.searchParams, res));
  return null;
}

/** The operation, when the bucket exists; else s3rver's answer (NoSuchBucket) through `fallBack`. */
function inBucket(store, bucket, operation) {
  return async (res, fallBack) => {
    if (!(await store.getBucket(bucket))) return fallBack();
    try {
      await operation(res, fallBack);
    } catch (err) {
      if (!(err instanceof S3Error)) throw err;
      answerError(res, err);
    }
  };
}

/** GET or HEAD of an object, whole or from a byte range, as s3rver's getObject answers it. */
async function getObject(store, bucket, key, req, res, fallBack) {
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const options = range ? { start: Number(range[1]), ...(range[2] ? { end: Number(range[2]) } : {}) } : undefined;
  // A HEAD, or a GET of a small object, reads the object's files in place (s3-small-files.mjs);
  // a large object's GET is s3rver's, as before.
  const object = await smallObject(store, bucket, key, options, req.method === 'HEAD');
  if (object === undefined) return fallBack();
  if (!object) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key });
  if (object.range && !object.content)
    throw new S3Error('InvalidRange', 'The requested range is not satisfiable', {
      RangeRequested: req.headers.range,
      ActualObjectSize: object.size,
    });
  res.setHeader('Accept-Ranges', 'bytes');
  for (const [name, value] of Object.entries(object.metadata)) res.setHeader(capitalizeHeader(name), value);
  if (object.range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${object.range.start}-${object.range.end}/${object.size}`);
    res.setHeader('Content-Length', object.range.end + 1 - object.range.start);
  } else {
    res.statusCode = 200;
    res.setHeader('Content-Length', object.size);
  }
  if (req.method === 'HEAD') return res.end();
  res.end(object.range ? object.content.subarray(object.range.start, object.range.end + 1) : object.content);
}

/**
 * What store.getObject answers, its content the object's bytes read whole (null for a HEAD, or when
 * the range is not satisfiable); undefined for a large object (store.getObject streams it) and
 * null when there is none.
 */
async function smallObject(store, bucket, key, options, head) {
  const { metadata, bytes } = head ? { metadata: await metadataOf(store, bucket, key), bytes: true } : await store.smallObject(bucket, key);
  if (!metadata) return null;
  if (!bytes) return undefined;
  const object = new S3Object(bucket, key, head ? true : bytes, metadata);
  if (options) {
    const last = Math.max(0, object.size - 1);
    // s3rver's arithmetic (FilesystemStore.getObject), its quirks included: a GET of the same range answers the same.
    object.range = { start: options.start || 0, end: Math.min(options.end || Number.POSITIVE_INFINITY, last) };
    // An empty object has no byte to give: S3 answers any range of it InvalidRange (s3rver promised one byte and sent none).
    if (object.range.end < object.range.start || object.size === 0) object.content = null;
  }
  return object;
}

const metadataOf = (store, bucket, key) =>
  store.getMetadata(bucket, key).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err)));

/** Whether a declared body is small enough to be held whole. */
function isSmall(contentLength) {
  const length = Number(contentLength);
  return contentLength !== undefined && Number.isSafeInteger(length) && length <= SMALL_BYTES;
}

/** PUT of a small object's bytes, held and written whole, with the metadata its headers carry. */
async function putObject(store, bucket, key, req, res) {
  const body = await bodyBytes(req, SMALL_BYTES);
  // s3rver checks no Content-MD5; the body's is checked before it is kept (S3's BadDigest).
  if (req.headers['content-md5'] && createHash('md5').update(body).digest('base64') !== req.headers['content-md5'])
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
  const { md5 } = await store.putObject(new S3Object(bucket, key, body, req.headers));
  res.statusCode = 200;
  res.setHeader('ETag', JSON.stringify(md5));
  res.end();
}

/** PUT with x-amz-copy-source: the object copied with its metadata (a REPLACE of it is s3rver's). */
async function copyObject(store, bucket, key, req, res) {
  const source = decodeURI(req.headers['x-amz-copy-source']).replace(/^\//, '');
  const [sourceBucket, ...sourceParts] = source.split('/');
  const sourceKey = sourceParts.join('/');
  if (sourceKey.split('/').some((part) => part === '..' || part === '.'))
    throw new S3Error('InvalidArgument', 'The copy source is not a key of this store');
  if (!(await store.getBucket(sourceBucket)))
    throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: sourceBucket });
  if (!(await store.existsObject(sourceBucket, sourceKey)))
    throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: sourceKey });
  if (sourceBucket === bucket && sourceKey === key)
    throw new S3Error(
      'InvalidRequest',
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
  const metadata = await store.copyObject(sourceBucket, sourceKey, bucket, key, null);
  answerXml(res, 200, 'CopyObjectResult', [
    tag('LastModified', new Date(metadata['last-modified']).toISOString()),
    tag('ETag', metadata.etag),
  ]);
}

/** PUT of one part of a multipart upload (its bytes placed by s3-multipart.mjs's assembleInPlace). */
async function uploadPart(store, bucket, query, req, res) {
  const { md5 } = await store.putPart(bucket, query.get('uploadId'), query.get('partNumber'), req);
  res.statusCode = 200;
  res.setHeader('ETag', JSON.stringify(md5));
  res.end();
}

/** POST ?uploads: a multipart upload opened, its metadata from the headers. */
async function initiateUpload(store, bucket, key, req, res) {
  const uploadId = randomBytes(16).toString('hex');
  await store.initiateUpload(bucket, key, uploadId, req.headers);
  answerXml(res, 200, 'InitiateMultipartUploadResult', [tag('Bucket', bucket), tag('Key', key), tag('UploadId', uploadId)]);
}

/** POST ?uploadId: the upload completed from the parts the body names. */
async function completeUpload(store, bucket, key, url, req, res) {
  const body = await bodyText(req, MAX_XML_BODY);
  const parts = [...body.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => ({
    number: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part)?.[1]),
    etag: unescapeXml(/<ETag>([\s\S]*?)<\/ETag>/.exec(part)?.[1] ?? '').replace(/"/g, ''),
  }));
  if (!parts.length || parts.some((part) => !Number.isSafeInteger(part.number)))
    throw new S3Error('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
  const uploadId = url.searchParams.get('uploadId');
  const { md5 } = await store.putObjectMultipart(bucket, uploadId, parts).catch((err) => {
    throw err.code === 'ENOENT' ? new S3Error('NoSuchUpload', 'The specified upload does not exist', { UploadId: uploadId }) : err;
  });
  answerXml(res, 200, 'CompleteMultipartUploadResult', [
    tag('Location', `http://${req.headers.host}${url.pathname}`),
    tag('Bucket', bucket),
    tag('Key', key),
    tag('ETag', JSON.stringify(md5)),
  ]);
}

/** POST ?delete: each named key that exists deleted (s3-delete.mjs's folder clean-up), every key answered as deleted, as S3 does. */
async function deleteObjects(store, bucket, req, res) {
  const body = await bodyText(req, MAX_XML_BODY);
  const keys = [...body.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map(([, key]) => unescapeXml(key));
  if (!/<Delete[\s>]/.test(body) || !keys.length || keys.length > MAX_DELETE_KEYS)
    throw new S3Error('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
  await Promise.all(
    keys.map(async (key) => {
      if (key.split('/').some((part) => part === '..' || part === '.')) return;
      if (await store.existsObject(bucket, key)) await store.deleteObject(bucket, key);
    }),
  );
  answerXml(
    res,
    200,
    'DeleteResult',
    keys.map((key) => `<Deleted>${tag('Key', key)}</Deleted>`),
  );
}

/** GET of a bucket without a delimiter (ListObjects v1): keys under the prefix after the marker, at most max-keys of them. */
async function listObjects(store, bucket, query, res) {
  const prefix = query.get('prefix') ?? '';
  const marker = query.get('marker') ?? '';
  const asked = query.get('max-keys');
  const maxKeys = Math.min(1000, asked ? Number(asked) : 1000);
  const result =
    maxKeys === 0
      ? { objects: [], isTruncated: false }
      : await store.listObjects(bucket, { prefix: prefix || undefined, startAfter: marker || undefined, maxKeys });
  answerXml(res, 200, 'ListBucketResult', [
    tag('Name', bucket),
    tag('Prefix', prefix),
    tag('Marker', marker),
    tag('MaxKeys', asked ?? 1000),
    tag('IsTruncated', result.isTruncated),
    ...result.objects.map(
      (object) =>
        `<Contents>${tag('Key', object.key)}${tag('LastModified', object.lastModifiedDate.toISOString())}${tag('ETag', object.metadata.etag)}${tag('Size', object.size)}<Owner>${tag('ID', DUMMY_OWNER.id)}${tag('DisplayName', DUMMY_OWNER.displayName)}</Owner>${tag('StorageClass', 'STANDARD')}</Contents>`,
    ),
  ]);
}

/** The owner s3rver names in every listing (its DUMMY_ACCOUNT). */
const DUMMY_OWNER = { id: '123456789000', displayName: 'S3rver' };

const bodyText = async (req, limit) => (await bodyBytes(req, limit)).toString('utf8');

function answerXml(res, status, root, children) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/xml');
  res.end(xml(root, children));
}

function answerError(res, err) {
  res.statusCode = err.status;
  res.setHeader('Content-Type', 'application/xml');
  res.end(err.toXML());
}

function unescapeXml(text) {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity) => {
    if (entity[0] === '#') return String.fromCodePoint(entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[entity];
  });
}
