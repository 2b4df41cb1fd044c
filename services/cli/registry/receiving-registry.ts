import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { http } from '../node-http.js';

// A registry that takes one push from the builder's own engine, on 127.0.0.1, for `pitch deploy`
// (issue 32): the engine sends only the layers this registry says it lacks, so a redeploy reads
// out of the engine just the layers the platform's registry lacks, where `docker save` wrote the
// whole image (128 MB for the Node base) to reach one 3 KB layer. It answers a HEAD with 200 for
// a layer of the image the platform already has (`claim`), keeps what is uploaded on disk with its
// digest checked, and keeps the manifest. Nothing here leaves the machine: the deploy unpacks and
// scans what arrived, then sends it on to the platform (engine-push.ts).
//
// Only the push half of the distribution API is answered (ping, blob HEAD, chunked and monolithic
// uploads, manifest PUT), under one random repository name; anything else is 404.

export interface ReceivedBlob {
  file: string;
  size: number;
}

export interface ReceivingRegistry {
  /** `127.0.0.1:<port>/<random name>`: where the engine pushes. */
  reference: string;
  /** Blobs uploaded, by digest, each checked against its digest. */
  received: Map<string, ReceivedBlob>;
  /** The manifest the push ended with, when it came. */
  manifest(): Buffer | null;
  /** Resolves on the first request the engine makes: it can reach this machine's loopback. */
  reached: Promise<void>;
  close(): Promise<void>;
}

export interface ReceivingOptions {
  /** Where uploads are written. */
  spoolDir: string;
  /** The size of a blob the platform's registry has and the engine need not send; null when it must. */
  claim: (digest: string) => Promise<number | null>;
  /** The most bytes the push may write here in all (the image's uncompressed size bounds a sane push). */
  maxBytes: number;
}

interface Upload {
  file: string;
  out: WriteStream;
  hash: Hash;
  size: number;
  /** A write that failed (a full disk): the upload's next step fails with it, and the push with that. */
  failed?: Error;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const MAX_MANIFEST = 4 << 20;

const reply = (res: ServerResponse, status: number, headers: Record<string, string | number> = {}, code?: string) => {
  const body = code ? JSON.stringify({ errors: [{ code, message: code.toLowerCase().replace(/_/g, ' ') }] }) : '';
  res.writeHead(status, { 'docker-distribution-api-version': 'registry/2.0', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
};

/** A manifest's bytes, or null past MAX_MANIFEST. */
async function readManifest(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MANIFEST) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The push's uploads, spooled to files, and the blobs they became, within one byte bound for the push. */
function uploadSpool(spoolDir: string, maxBytes: number) {
  const received = new Map<string, ReceivedBlob>();
  const uploads = new Map<string, Upload>();
  let written = 0;

  const drop = async (id: string, upload: Upload) => {
    uploads.delete(id);
    await new Promise((resolve) => upload.out.end(resolve));
    await rm(upload.file, { force: true });
  };

  return {
    received,
    uploads,
    drop,
    open() {
      const id = randomBytes(12).toString('hex');
      const file = join(spoolDir, `upload-${id}`);
      const upload: Upload = { file, out: createWriteStream(file), hash: createHash('sha256'), size: 0 };
      upload.out.on('error', (err) => {
        upload.failed = err;
      });
      uploads.set(id, upload);
      return id;
    },
    /**
     * Appends a request body to an upload, within the push's byte bound. Past it, the rest of the
     * body is read and dropped (the answer then reaches the engine, which a reset would not) and the
     * upload is forgotten: false.
     */
    async append(req: IncomingMessage, id: string, upload: Upload): Promise<boolean> {
      let over = false;
      for await (const chunk of req) {
        if (over) continue;
        written += (chunk as Buffer).length;
        if (written > maxBytes) {
          over = true;
          continue;
        }
        if (upload.failed) throw upload.failed;
        upload.size += (chunk as Buffer).length;
        upload.hash.update(chunk as Buffer);
        if (!upload.out.write(chunk)) await new Promise<void>((resolve) => upload.out.once('drain', () => resolve()));
      }
      if (over) await drop(id, upload);
      return !over;
    },
    /** Closes an upload as `digest`: its bytes must hash to it. */
    async finish(id: string, upload: Upload, digest: string): Promise<boolean> {
      uploads.delete(id);
      await new Promise((resolve, reject) => upload.out.end((err?: Error | null) => (err ? reject(err) : resolve(null))));
      if (upload.failed) throw upload.failed;
      if (`sha256:${upload.hash.digest('hex')}` !== digest) {
        await rm(upload.file, { force: true });
        return false;
      }
      const file = join(spoolDir, `blob-${digest.slice(7)}`);
      await rename(upload.file, file);
      received.set(digest, { file, size: upload.size });
      return true;
    },
  };
}

type Spool = ReturnType<typeof uploadSpool>;

/** `/v2/<name>/blobs/uploads/[id]`: a new upload (or a whole blob in one POST), a chunk, its end, its removal. */
async function handleUpload(spool: Spool, prefix: string, req: IncomingMessage, res: ServerResponse, url: URL, id: string) {
  const method = req.method ?? 'GET';
  const location = (uploadId: string) => `${prefix}blobs/uploads/${uploadId}`;
  if (method === 'POST' && !id) {
    // A mount (`?mount=&from=`) is never done here: the answer is a new upload, as the spec allows.
    const opened = spool.open();
    const digest = url.searchParams.get('digest');
    if (digest && !url.searchParams.has('mount')) {
      const upload = spool.uploads.get(opened)!;
      if (!(await spool.append(req, opened, upload))) return reply(res, 400, {}, 'BLOB_UPLOAD_INVALID');
      if (!(await spool.finish(opened, upload, digest))) return reply(res, 400, {}, 'DIGEST_INVALID');
      return reply(res, 201, { location: `${prefix}blobs/${digest}`, 'docker-content-digest': digest });
    }
    req.resume();
    return reply(res, 202, { location: location(opened), range: '0-0', 'docker-upload-uuid': opened });
  }
  const upload = spool.uploads.get(id);
  if (!upload) return reply(res, 404, {}, 'BLOB_UPLOAD_UNKNOWN');
  if (method === 'PATCH') {
    if (!(await spool.append(req, id, upload))) return reply(res, 400, {}, 'BLOB_UPLOAD_INVALID');
    return reply(res, 202, { location: location(id), range: `0-${Math.max(0, upload.size - 1)}`, 'docker-upload-uuid': id });
  }
  if (method === 'PUT') {
    const digest = url.searchParams.get('digest') ?? '';
    if (!DIGEST.test(digest)) return reply(res, 400, {}, 'DIGEST_INVALID');
    if (!(await spool.append(req, id, upload))) return reply(res, 400, {}, 'BLOB_UPLOAD_INVALID');
    if (!(await spool.finish(id, upload, digest))) return reply(res, 400, {}, 'DIGEST_INVALID');
    return reply(res, 201, { location: `${prefix}blobs/${digest}`, 'docker-content-digest': digest });
  }
  if (method === 'DELETE') {
    await spool.drop(id, upload);
    return reply(res, 204);
  }
  return reply(res, 405, {}, 'UNSUPPORTED');
}

export async function startReceivingRegistry(options: ReceivingOptions): Promise<ReceivingRegistry> {
  const name = `pitch-push-${randomBytes(8).toString('hex')}`;
  const spool = uploadSpool(options.spoolDir, options.maxBytes);
  const { received, uploads } = spool;
  let manifest: Buffer | null = null;
  let reachedNow!: () => void;
  const reached = new Promise<void>((resolve) => (reachedNow = resolve));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    reachedNow();
    const url = new URL(req.url ?? '/', 'http://registry');
    const method = req.method ?? 'GET';
    if (url.pathname === '/v2/' || url.pathname === '/v2') return reply(res, 200);
    const prefix = `/v2/${name}/`;
    if (!url.pathname.startsWith(prefix)) return reply(res, 404, {}, 'NAME_UNKNOWN');
    const [kind, ...rest] = url.pathname.slice(prefix.length).split('/');
    const ref = rest.join('/');

    if (kind === 'blobs' && ref !== 'uploads' && ref !== 'uploads/' && !ref.startsWith('uploads/')) {
      if ((method !== 'HEAD' && method !== 'GET') || !DIGEST.test(ref)) return reply(res, 404, {}, 'BLOB_UNKNOWN');
      const have = received.get(ref);
      // A claimed blob is on the platform, not here: only its HEAD is answered, which is all a push asks.
      const size = have ? have.size : method === 'HEAD' ? await options.claim(ref) : null;
      if (size === null) return reply(res, 404, {}, 'BLOB_UNKNOWN');
      res.writeHead(200, { 'docker-content-digest': ref, 'content-length': size, 'content-type': 'application/octet-stream' });
      return res.end();
    }
    if (kind === 'blobs') return handleUpload(spool, prefix, req, res, url, rest[1] ?? '');
    if (kind === 'manifests' && method === 'PUT') {
      const body = await readManifest(req);
      if (!body) return reply(res, 400, {}, 'MANIFEST_INVALID');
      manifest = body;
      const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
      return reply(res, 201, { location: `${prefix}manifests/${digest}`, 'docker-content-digest': digest });
    }
    return reply(res, 404, {}, kind === 'manifests' ? 'MANIFEST_UNKNOWN' : 'UNSUPPORTED');
  };

  const server = http().createServer((req, res) => {
    handle(req, res).catch(() => {
      // A failed write (the bound, the disk) ends this request; the push then fails and says so.
      if (!res.headersSent) reply(res, 500, {}, 'UNKNOWN');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    reference: `127.0.0.1:${port}/${name}`,
    received,
    manifest: () => manifest,
    reached,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const upload of uploads.values()) upload.out.destroy();
      uploads.clear();
    },
  };
}
