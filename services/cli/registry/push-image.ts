import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { Refusal } from '../refusal.js';
import { registryErrors, registryRequest, type RegistryReply } from './registry-http.js';

// Pushes an image to the platform's registry over the registry HTTP API (distribution spec):
// a HEAD per blob, an upload of the missing ones only, then the manifest, by digest and never by
// tag. The image arrives as the engine saves it (`docker save`: a docker-archive whose layers are
// `<diff id>.tar` and whose config is `<image id>.json`), read once as a stream. Layers are pushed
// uncompressed: their digests are then the image's diff ids, the same on every deploy, so an
// unchanged layer is found by its HEAD without compressing anything again (issue 32).

export interface PushTarget {
  /** The registry's base URL, e.g. http://127.0.0.1:5010. */
  registryUrl: string;
  /** `<workspace id>/<project id>`. */
  repository: string;
  /** A registry token granting push and pull on the repository. */
  token: string;
}

export interface PushResult {
  /** The manifest's digest: what the build records and the runner pulls by. */
  manifestDigest: string;
  /** The image id (the config's digest). */
  configDigest: string;
  sent: { layers: number; bytes: number };
  skipped: { layers: number; bytes: number };
}

const MEDIA = {
  manifest: 'application/vnd.docker.distribution.manifest.v2+json',
  config: 'application/vnd.docker.container.image.v1+json',
  layer: 'application/vnd.docker.image.rootfs.diff.tar',
};
const BLOB = /^([0-9a-f]{64})\.(tar|json)$/;

/** A manifest.json of a docker-archive: one image, its config and layers by file name. */
interface ArchiveImage {
  Config: string;
  Layers: string[];
}

export async function pushImage(target: PushTarget, archive: Readable): Promise<PushResult> {
  const base = `${target.registryUrl}/v2/${target.repository}`;
  const blobs = new Map<string, { size: number; sent: boolean }>(); // by file name
  let config: Buffer | null = null;
  let manifestFile: Buffer | null = null;

  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const done = (err?: unknown) => (err ? extract.destroy(err as Error) : next());
    const name = header.name;
    const blob = header.type === 'file' ? BLOB.exec(name) : null;
    if (name === 'manifest.json' || blob?.[2] === 'json') {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (name === 'manifest.json') manifestFile = Buffer.concat(chunks);
        else config = Buffer.concat(chunks);
        done();
      });
      return;
    }
    if (!blob) {
      stream.on('end', () => done());
      stream.resume();
      return;
    }
    const digest = `sha256:${blob[1]}`;
    const size = header.size ?? 0;
    has(target, base, digest)
      .then(async (present) => {
        if (present) {
          blobs.set(name, { size, sent: false });
          stream.on('end', () => done());
          stream.resume();
          return;
        }
        await uploadBlob(target, base, digest, size, stream as unknown as Readable, 'layer');
        blobs.set(name, { size, sent: true });
        done();
      })
      .catch(done);
  });
  await pipeline(archive, extract);

  const image = oneImage(manifestFile);
  if (!config) throw new Refusal('the saved image has no config file: the engine gave an archive that is not one image');
  const configBytes: Buffer = config;
  const configDigest = `sha256:${createHash('sha256').update(configBytes).digest('hex')}`;
  if (`${configDigest.slice(7)}.json` !== image.Config)
    throw new Refusal(`the saved image's config is not the file its manifest names (${image.Config})`);
  if (!(await has(target, base, configDigest))) await uploadBlob(target, base, configDigest, configBytes.length, configBytes, 'config');

  const layers = image.Layers.map((file) => {
    const blob = blobs.get(file);
    if (!blob) throw new Refusal(`the saved image names the layer ${file}, which its archive does not hold`);
    return { mediaType: MEDIA.layer, size: blob.size, digest: `sha256:${file.slice(0, 64)}` };
  });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: { mediaType: MEDIA.config, size: configBytes.length, digest: configDigest },
      layers,
    }),
  );
  const manifestDigest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
  const put = await registryRequest(`${base}/manifests/${manifestDigest}`, {
    method: 'PUT',
    token: target.token,
    headers: { 'content-type': MEDIA.manifest, 'content-length': manifest.length },
    body: manifest,
  });
  if (put.status !== 201) throw refused('the image manifest', put);

  const sent = image.Layers.map((f) => blobs.get(f)!).filter((b) => b.sent);
  const skipped = image.Layers.map((f) => blobs.get(f)!).filter((b) => !b.sent);
  return {
    manifestDigest,
    configDigest,
    sent: { layers: sent.length, bytes: sent.reduce((n, b) => n + b.size, 0) },
    skipped: { layers: skipped.length, bytes: skipped.reduce((n, b) => n + b.size, 0) },
  };
}

function oneImage(file: Buffer | null): ArchiveImage {
  let list: unknown;
  try {
    list = file ? JSON.parse(file.toString('utf8')) : null;
  } catch {}
  const image = Array.isArray(list) && list.length === 1 ? (list[0] as Partial<ArchiveImage>) : null;
  if (!image || typeof image.Config !== 'string' || !Array.isArray(image.Layers))
    throw new Refusal('the saved image has no manifest.json of one image: the engine gave an archive the platform cannot take');
  return image as ArchiveImage;
}

/** Whether the repository has the blob (a mount or an earlier push put it there). */
async function has(target: PushTarget, base: string, digest: string): Promise<boolean> {
  const reply = await registryRequest(`${base}/blobs/${digest}`, { method: 'HEAD', token: target.token });
  if (reply.status === 200) return true;
  if (reply.status === 404) return false;
  throw refused(`the check for ${digest}`, reply);
}

/** One monolithic upload: POST opens it, PUT with ?digest= sends the bytes and closes it; the registry checks the digest. */
async function uploadBlob(
  target: PushTarget,
  base: string,
  digest: string,
  size: number,
  body: Readable | Buffer,
  what: 'layer' | 'config',
): Promise<void> {
  const opened = await registryRequest(`${base}/blobs/uploads/`, { method: 'POST', token: target.token, headers: { 'content-length': 0 } });
  if (opened.status !== 202 || typeof opened.headers.location !== 'string') throw refused(`the upload of ${what} ${digest}`, opened);
  const location = new URL(opened.headers.location, target.registryUrl);
  location.searchParams.set('digest', digest);
  const put = await registryRequest(location.toString(), {
    method: 'PUT',
    token: target.token,
    headers: { 'content-type': 'application/octet-stream', 'content-length': size },
    body,
  });
  if (put.status === 201) return;
  if (registryErrors(put).includes('DIGEST_INVALID') || registryErrors(put).includes('SIZE_INVALID')) {
    throw new Refusal(
      `the registry refused ${what} ${digest}: its bytes do not match its digest (DIGEST_INVALID), so the image was not deployed`,
      'the image in your engine may be damaged: build it again (pitch deploy --force), or remove it and deploy',
    );
  }
  throw refused(`the upload of ${what} ${digest}`, put);
}

function refused(doing: string, reply: RegistryReply): Refusal {
  const errors = registryErrors(reply);
  const hint =
    reply.status === 401 || reply.status === 403
      ? 'the registry token does not grant this repository: sign in again (pitch login) and deploy'
      : undefined;
  return new Refusal(`${doing}: the registry answered ${reply.status}${errors ? ` ${errors}` : ''}`, hint);
}
