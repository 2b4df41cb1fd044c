// The local object store: s3rver in its own process, so a slow upload never stalls the launcher.
// Every request's AWS Signature V4 is checked first (s3-sigv4.mjs): s3rver checks none, and a
// presigned upload URL only limits length, type and time when the store refuses what differs.
// Usage: node infra/local/s3-server.mjs <directory> <port> <bucket>...
import { rm } from 'node:fs/promises';
import path from 'node:path';
import S3rver from 's3rver';
import { S3RVER_KEYS } from './s3.mjs';
import { checkSignature } from './s3-sigv4.mjs';

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

const { port: bound } = await server.run();
const s3rver = server.callback();
server.httpServer.removeAllListeners('request');
server.httpServer.on('request', (req, res) => {
  checkSignature(req, keys).then(
    (refusal) => {
      if (refusal) return refuse(res, req, refusal);
      if (req.method === 'DELETE' && new URL(req.url, 'http://local').searchParams.has('uploadId')) return abortMultipart(req, res);
      s3rver(req, res);
    },
    (error) => refuse(res, req, { status: 500, code: 'InternalError', message: String(error?.message ?? error) }),
  );
});
console.log(`listening on http://127.0.0.1:${bound} (buckets: ${buckets.join(', ') || 'none'})`);

/**
 * AbortMultipartUpload, which s3rver lacks (it answers 405): drops the parts its filesystem store
 * keeps in its uploads folder under the upload id. The sweep aborts abandoned ones.
 */
async function abortMultipart(req, res) {
  const url = new URL(req.url, 'http://local');
  const bucket = decodeURIComponent(url.pathname.split('/')[1] ?? '');
  const uploadId = url.searchParams.get('uploadId') ?? '';
  if (!buckets.includes(bucket) && !(await server.store.getBucket(bucket))) {
    return refuse(res, req, { status: 404, code: 'NoSuchBucket', message: 'The specified bucket does not exist' });
  }
  if (!/^[0-9a-f]{32}$/.test(uploadId)) {
    return refuse(res, req, { status: 404, code: 'NoSuchUpload', message: 'The specified upload does not exist' });
  }
  await rm(path.join(server.store.getResourcePath(bucket, undefined, 'uploads'), uploadId), { recursive: true, force: true });
  res.statusCode = 204;
  res.end();
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

function escapeXml(text) {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close().finally(() => process.exit(0)));
}
