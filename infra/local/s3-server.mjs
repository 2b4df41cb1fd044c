// The local object store: s3rver in its own process, so a slow upload never stalls the launcher.
// Every request's AWS Signature V4 is checked first (s3-sigv4.mjs): s3rver checks none, and a
// presigned upload URL only limits length, type and time when the store refuses what differs.
// The registry's most frequent operations are then answered straight from s3rver's store
// (s3-direct.mjs), whose small files are read and written in place (s3-small-files.mjs);
// S3_DIRECT=0 leaves every request to s3rver (the tests compare the two).
// Usage: node infra/local/s3-server.mjs <directory> <port> <bucket>...
import S3rver from 's3rver';
import { S3RVER_KEYS } from './s3.mjs';
import { abortMultipart, assembleInPlace, escapeXml, listWithDelimiter, listMultipartUploads, listParts } from './s3-multipart.mjs';
import { listFromPrefixFolder } from './s3-listing.mjs';
import { tolerantDeletes } from './s3-delete.mjs';
import { checkSignature } from './s3-sigv4.mjs';
import { directOperation } from './s3-direct.mjs';
import { smallFilesInPlace } from './s3-small-files.mjs';

const [directory, port, ...buckets] = process.argv.slice(2);
if (!directory || !port) {
  console.error('usage: s3-server.mjs <directory> <port> <bucket>...');
  process.exit(2);
}

const keys = { [S3RVER_KEYS.S3_ACCESS_KEY_ID]: S3RVER_KEYS.S3_SECRET_ACCESS_KEY };

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  directory,
  // s3rver logs every request through winston; the platform logs its own storage calls.
  silent: true,
  configureBuckets: buckets.map((name) => ({ name })),
});

const direct = process.env.S3_DIRECT !== '0';
if (direct) smallFilesInPlace(server.store);
assembleInPlace(server.store);
listFromPrefixFolder(server.store);
tolerantDeletes(server.store);
const { port: bound } = await server.run();
const s3rver = server.callback();
server.httpServer.removeAllListeners('request');
server.httpServer.on('request', (req, res) => {
  const fail = (error) => refuse(res, req, { status: 500, code: 'InternalError', message: String(error?.message ?? error) });
  checkSignature(req, keys).then((refusal) => {
    if (refusal) return refuse(res, req, refusal);
    const directly = direct ? directOperation(server.store, req) : null;
    if (directly) return directly(res, () => s3rver(req, res)).catch((error) => (res.headersSent ? res.destroy() : fail(error)));
    const missing = multipartOperation(req);
    if (!missing) return s3rver(req, res);
    missing().then((answer) => (answer.error ? refuse(res, req, { status: answer.status, ...answer.error }) : reply(res, answer)), fail);
  }, fail);
});
console.log(`listening on http://127.0.0.1:${bound} (buckets: ${buckets.join(', ') || 'none'})`);

/** The multipart operation s3rver lacks that this request asks for (s3-multipart.mjs), or null. */
function multipartOperation(req) {
  const url = new URL(req.url, 'http://local');
  const [, bucketPart = '', ...keyParts] = url.pathname.split('/');
  const bucket = decodeURIComponent(bucketPart);
  const key = decodeURIComponent(keyParts.join('/'));
  const query = url.searchParams;
  const inBucket = (operation) => async () =>
    (await server.store.getBucket(bucket))
      ? operation()
      : { status: 404, error: { code: 'NoSuchBucket', message: 'The specified bucket does not exist' } };
  if (req.method === 'DELETE' && key && query.has('uploadId'))
    return inBucket(() => abortMultipart(server.store, bucket, query.get('uploadId')));
  if (req.method === 'GET' && !key && query.has('uploads'))
    return inBucket(() => listMultipartUploads(server.store, bucket, query.get('prefix') ?? ''));
  if (req.method === 'GET' && !key && query.has('delimiter') && !query.has('uploads'))
    return inBucket(() => listWithDelimiter(server.store, bucket, query));
  if (req.method === 'GET' && key && query.has('uploadId'))
    return inBucket(() => listParts(server.store, bucket, key, query.get('uploadId')));
  return null;
}

function reply(res, { status, body }) {
  res.statusCode = status;
  if (body) res.setHeader('Content-Type', 'application/xml');
  res.end(body);
}

function refuse(res, req, { status, code, message }) {
  const answer = () => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/xml');
    res.setHeader('Connection', 'close');
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`);
  };
  // The body of a refused PUT is read to its end (and dropped) before the answer, so the client
  // reads the refusal instead of a broken pipe; a client that goes away ends it too.
  if (req.complete) return answer();
  req.once('end', answer);
  req.once('close', () => res.headersSent || res.destroy());
  req.resume();
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close().finally(() => process.exit(0)));
}
