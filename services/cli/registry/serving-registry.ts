import { createReadStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { http } from '../node-http.js';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import { engineDial, readProgress } from '../local-engine/engine-dial.js';
import { Refusal } from '../refusal.js';
import { blobSize, type PushTarget } from './push-image.js';
import { manifestBytes, type ImageManifest } from './image-manifest.js';
import { openBlob } from './registry-blobs.js';

// The in-process image (issue 48, item 1) into the local engine, so the rehearsal starts the very
// image that will go live: a registry on 127.0.0.1 serves its manifest, config and new layers from
// this machine, and any other layer from the project's repository on the platform (the engine
// usually has those already: it asks by the layer's digest, which is its diff id, and pulls none
// it holds). Nothing is pushed to the platform before the scan and the rehearsal have passed. The
// engine pulls by the manifest's digest, the one the push will record.

/** A blob this machine holds: bytes in memory, or a file. */
export type LocalBlob = { bytes: Buffer } | { file: string; size: number };

/**
 * Pulls the image into the engine; answers the engine's image id (the config's digest) and the
 * name the pull gave it (this served registry's address, gone once the pull ends: the caller drops
 * it once the image has a name of its own).
 */
export async function pullIntoEngine(
  docker: Docker,
  image: ImageManifest,
  local: Map<string, LocalBlob>,
  /** The project's repository, for a layer the engine asks for and this machine lacks (asked only then). */
  platform: () => Promise<PushTarget>,
): Promise<{ id: string; reference: string }> {
  const manifest = manifestBytes(image);
  const name = `pitch-pull-${randomBytes(8).toString('hex')}`;
  const server = http().createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const head = req.method === 'HEAD';
      if (path === '/v2/' || path === '/v2') return void res.writeHead(200).end();
      if (path === `/v2/${name}/manifests/${manifest.digest}`) {
        res.writeHead(200, {
          'content-type': manifest.mediaType,
          'content-length': manifest.bytes.length,
          'docker-content-digest': manifest.digest,
        });
        return void res.end(head ? undefined : manifest.bytes);
      }
      const blob = new RegExp(`^/v2/${name}/blobs/(sha256:[0-9a-f]{64})$`).exec(path)?.[1];
      if (!blob || (req.method !== 'GET' && !head)) return void res.writeHead(404).end();
      const mine = local.get(blob);
      if (mine) {
        const size = 'bytes' in mine ? mine.bytes.length : mine.size;
        res.writeHead(200, { 'content-length': size, 'docker-content-digest': blob, 'content-type': 'application/octet-stream' });
        if (head) return void res.end();
        if ('bytes' in mine) return void res.end(mine.bytes);
        return void (await pipeline(createReadStream(mine.file), res));
      }
      const repository = await platform();
      if (head) {
        const size = await blobSize(repository, blob);
        return void (size === null ? res.writeHead(404).end() : res.writeHead(200, { 'content-length': size }).end());
      }
      const size = await blobSize(repository, blob);
      const stream: Readable | null = size === null ? null : await openBlob(repository, blob);
      if (!stream) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': size!, 'docker-content-digest': blob, 'content-type': 'application/octet-stream' });
      await pipeline(stream, res);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reference = `127.0.0.1:${(server.address() as AddressInfo).port}/${name}@${manifest.digest}`;
  let id: string | null;
  try {
    id = await enginePull(docker, reference);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }
  // The id the pull's last line named; an engine that names none is asked.
  id ??= (await docker.getImage(reference).inspect()).Id;
  return { id: id.startsWith('sha256:') ? id : `sha256:${id}`, reference };
}

/** podman's pull (libpod API: it takes tlsVerify for this plain-HTTP loopback); its progress read to the end, for the image id it names. */
async function enginePull(docker: Docker, reference: string): Promise<string | null> {
  const stream = (await engineDial(docker, {
    method: 'POST',
    path: '/v4.0.0/libpod/images/pull?',
    query: { reference, tlsVerify: false, quiet: false },
    body: {},
    stream: true,
    statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' },
  }).catch((err: unknown) => {
    throw new Refusal(`the engine could not pull the image: ${(err as Error).message}`);
  })) as Readable;
  const { error, id } = await readProgress(stream);
  if (error) throw new Refusal(`the engine could not pull the image: ${error}`);
  return id;
}
