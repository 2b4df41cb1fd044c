import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { eachAtMost } from '../each-at-most.js';
import { manifestBytes } from './image-manifest.js';
import { Refusal } from '../refusal.js';
import { readImage, type ImageLayer, type ReadImage } from './read-image.js';
import { registryErrors, registryRequest, type RegistryReply } from './registry-http.js';

// Pushes an image to the platform's registry over the registry HTTP API (distribution spec):
// a HEAD per blob, an upload of the missing ones only, then the manifest, by digest and never by
// tag. The image arrives as the engine saves it (`docker save`: a docker-archive whose layers are
// `<diff id>.tar` and whose config is `<image id>.json`), read once as a stream (read-image.ts). Layers are pushed
// uncompressed: their digests are then the image's diff ids, the same on every deploy, so an
// unchanged layer is found by its HEAD without compressing anything again (issue 32).

export interface PushTarget {
  /** The registry's base URL, e.g. http://127.0.0.1:5010. */
  registryUrl: string;
  /** `<workspace id>/<project id>`. */
  repository: string;
  /** A registry token granting push and pull on the repository (and pull on `mountFrom`). */
  token: string;
  /**
   * Repositories of the same workspace a missing layer is mounted from (the registry's
   * cross-repository mount) rather than uploaded; never another workspace's (the token would not
   * grant it, and the registry then uploads instead).
   */
  mountFrom?: string[];
}

export interface PushResult {
  /** The manifest's digest: what the build records and the runner pulls by. */
  manifestDigest: string;
  /** The manifest's text as pushed: createBuild sends it, so the platform need not read it back. */
  manifestText: string;
  /** The image id (the config's digest). */
  configDigest: string;
  sent: { layers: number; bytes: number };
  /** Layers the repository lacked and another repository of the workspace had: mounted, not sent. */
  mounted: { layers: number; bytes: number };
  skipped: { layers: number; bytes: number };
}

/**
 * Pushes a docker-archive: read once (`readImage`), the layers the repository lacks kept in a
 * temporary folder meanwhile, then sent (`sendImage`). `pitch deploy` does the two halves apart,
 * with the scan and the rehearsal between them.
 */
export async function pushImage(target: PushTarget, archive: Readable): Promise<PushResult> {
  const spoolDir = await mkdtemp(join(tmpdir(), 'pitch-push-'));
  try {
    const image = await readImage(archive, { present: (digest) => has(target, digest), spoolDir });
    return await sendImage(target, image);
  } finally {
    await rm(spoolDir, { recursive: true, force: true });
  }
}

/**
 * The second half of a push: the layers read as missing (their bytes spooled), unless the
 * repository has them by now; the config; then the manifest, by its digest. A layer the registry
 * had when the image was read is not asked about again, and a small one read as missing, or the
 * config, is sent without asking: the question costs a round trip, as the upload does.
 */
export async function sendImage(target: PushTarget, image: ReadImage): Promise<PushResult> {
  return putManifest(target, image, await sendBlobs(target, image));
}

/** What `sendBlobs` sent, mounted and skipped. */
export type BlobsSent = Omit<PushResult, 'manifestDigest' | 'manifestText' | 'configDigest'>;

/**
 * The blobs of a push, without its manifest: the layers read as missing and the config. Alone, it
 * makes no image in the repository (no manifest names the blobs yet): `pitch deploy` sends an
 * in-process image's blobs while its rehearsal runs, and the manifest only once it has passed.
 */
export async function sendBlobs(target: PushTarget, image: ReadImage, opened?: OpenedUploads): Promise<BlobsSent> {
  const sent = { layers: 0, bytes: 0 };
  const mounted = { layers: 0, bytes: 0 };
  const skipped = { layers: 0, bytes: 0 };
  const mountedFrom = async (layer: ImageLayer, repositories: string[]) => {
    if (!(await mountBlob(target, layer.digest, repositories))) return false;
    mounted.layers++;
    mounted.bytes += layer.size;
    return true;
  };
  const sendLayer = async (layer: ImageLayer) => {
    // A layer the engine did not read out, the repository named holding it: there are no bytes
    // here to send, so it is mounted from there, and gone from there meanwhile it is a refusal.
    if (layer.mountFrom) {
      if (await mountedFrom(layer, [layer.mountFrom])) return;
      throw new Refusal(
        `the layer ${layer.digest} was in your workspace's other projects as the image was read, and is no longer`,
        'deploy again: the engine then reads it out and it is sent',
      );
    }
    if (layer.file === null || (layer.size > ASK_FIRST_ABOVE && (await has(target, layer.digest)))) {
      skipped.layers++;
      skipped.bytes += layer.size;
      return;
    }
    // A small layer is sent as soon as asked about elsewhere: the mount's round trips cost as much.
    if (layer.size > ASK_FIRST_ABOVE && (await mountedFrom(layer, target.mountFrom ?? []))) return;
    const file = layer.file;
    await uploadBlob(target, layer.digest, layer.size, () => createReadStream(file), 'layer', opened);
    sent.layers++;
    sent.bytes += layer.size;
  };
  const { config, configDigest, configSize } = image;
  const sendConfig = async () => {
    if (config) await uploadBlob(target, configDigest, configSize, () => config, 'config', opened);
  };
  // The blobs side by side (each registry request waits on its storage), the manifest after them all.
  await eachAtMost(UPLOADS_AT_ONCE, [sendConfig, ...image.layers.map((layer) => () => sendLayer(layer))]);
  return { sent, mounted, skipped };
}

/** Upload sessions opened ahead of their bytes (openUploads): each taken once; those left are ended. */
export interface OpenedUploads {
  /** An open session's address, or null when none is left (the upload then opens its own). */
  take(): Promise<string | null>;
  /** Ends the sessions nobody took (the registry would keep each for days). */
  close(): Promise<void>;
}

/**
 * Upload sessions opened now (POST, no body: nothing of the image goes with it), one per blob
 * `sendBlobs` will upload without asking first, for a push that waits for the scans: their PUT is then the upload's one round trip
 * on the push's path (a deploy's scans end after the registry's token has come).
 */
export function openUploads(target: PushTarget, image: ReadImage): OpenedUploads {
  // What sendBlobs uploads without asking first: the config and the small layers read as missing.
  const count = (image.config ? 1 : 0) + image.layers.filter((layer) => layer.file !== null && layer.size <= ASK_FIRST_ABOVE).length;
  const sessions = Array.from({ length: count }, () => openSession(target).then(sessionAddress, () => null));
  return {
    take: async () => (await sessions.shift()) ?? null,
    async close() {
      const left = await Promise.all(sessions.splice(0));
      await Promise.all(
        left.flatMap((location) =>
          location
            ? [registryRequest(new URL(location, target.registryUrl).toString(), { method: 'DELETE', token: target.token }).catch(() => {})]
            : [],
        ),
      );
    },
  };
}

/** The push's last request: the manifest, by its digest, once every blob it names is in the repository (`sendBlobs`). */
export async function putManifest(target: PushTarget, image: ReadImage, blobs: BlobsSent): Promise<PushResult> {
  const { configDigest } = image;
  const { bytes: manifest, digest: manifestDigest, mediaType } = manifestBytes(image);
  const put = await registryRequest(`${base(target)}/manifests/${manifestDigest}`, {
    method: 'PUT',
    token: target.token,
    headers: { 'content-type': mediaType, 'content-length': manifest.length },
    body: manifest,
  });
  if (put.status !== 201) throw refused('the image manifest', put);
  return { manifestDigest, manifestText: manifest.toString('utf8'), configDigest, ...blobs };
}

/**
 * An image the repository holds whole, described without reading it out of the engine: its config
 * and layers (the engine's `inspect`: the image id and RootFS diff ids, which are the blobs'
 * digests as pitch pushes them) each found by a HEAD, which also gives its size. Null when one is
 * missing: the image must then be read.
 */
export async function imageInRegistry(target: PushTarget, configDigest: string, diffIds: string[]): Promise<ReadImage | null> {
  const sizes = await Promise.all([configDigest, ...diffIds].map((digest) => blobSize(target, digest)));
  if (sizes.some((size) => size === null)) return null;
  const [configSize, ...layerSizes] = sizes as number[];
  return {
    config: null,
    configDigest,
    configSize,
    layers: diffIds.map((digest, i) => ({ digest, size: layerSizes[i], file: null })),
    scan: { layers: 0, baseLayers: 0, files: 0, findings: [] },
  };
}

/** A layer read as missing is asked about again before it is sent only above this size (bytes). */
const ASK_FIRST_ABOVE = 1 << 20;

/** Blob uploads a push has open at once. */
const UPLOADS_AT_ONCE = 4;

const base = (target: PushTarget) => `${target.registryUrl}/v2/${target.repository}`;

/** Whether the repository has the blob (a mount or an earlier push put it there). */
export async function has(target: PushTarget, digest: string): Promise<boolean> {
  return (await blobSize(target, digest)) !== null;
}

/** The blob's size in the repository (its HEAD's Content-Length), or null when the repository lacks it. */
export async function blobSize(target: PushTarget, digest: string): Promise<number | null> {
  const reply = await registryRequest(`${base(target)}/blobs/${digest}`, { method: 'HEAD', token: target.token });
  const size = Number(reply.headers['content-length']);
  if (reply.status === 200 && Number.isSafeInteger(size) && size >= 0) return size;
  if (reply.status === 404) return null;
  throw refused(`the check for ${digest}`, reply);
}

/**
 * The registry's cross-repository mount (`POST …/blobs/uploads/?mount=<digest>&from=<repository>`):
 * 201 when `from` holds the blob and the token may pull it, and the blob is then the target's
 * without a byte sent. Any other answer opens an upload instead, which is cancelled; the next of
 * `repositories` is tried, and false answered when none had it.
 */
async function mountBlob(target: PushTarget, digest: string, repositories: string[]): Promise<boolean> {
  for (const from of repositories) {
    const url = `${base(target)}/blobs/uploads/?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(from)}`;
    const reply = await registryRequest(url, { method: 'POST', token: target.token, headers: { 'content-length': 0 } });
    if (reply.status === 201) return true;
    if (reply.status === 202 && typeof reply.headers.location === 'string') {
      await registryRequest(new URL(reply.headers.location, target.registryUrl).toString(), {
        method: 'DELETE',
        token: target.token,
      }).catch(() => {});
    }
  }
  return false;
}

/** Tries of one blob's upload; the waits before the second and the third (ms). */
const UPLOAD_TRIES = 3;
const RETRY_WAIT_MS = [200, 800];

/**
 * One blob's upload (uploadOnce), tried again on an answer of 5xx or a connection that broke: a
 * registry's store that throttles (S3's 503 SlowDown) or failed a moment, a registry restarting.
 * Each try opens a new upload and sends the bytes again from `source`; a refusal (4xx, a digest
 * that does not match) is not tried again.
 */
async function uploadBlob(
  target: PushTarget,
  digest: string,
  size: number,
  source: () => Readable | Buffer,
  what: 'layer' | 'config',
  opened?: OpenedUploads,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    let failed: RegistryReply | Error;
    const session = tries === 1 ? await opened?.take() : null;
    try {
      const reply = await uploadOnce(target, digest, size, source(), what, session ?? undefined);
      if (reply === null) return;
      failed = reply;
    } catch (err) {
      if (err instanceof Refusal) throw err;
      failed = err as Error;
    }
    // A session opened ahead that the registry no longer knows (it restarted, or purged it) is tried again as any other.
    const transient = failed instanceof Error || failed.status >= 500 || !!session;
    if (!transient || tries >= UPLOAD_TRIES) throw failed instanceof Error ? failed : refused(`the upload of ${what} ${digest}`, failed);
    await new Promise((resolve) => setTimeout(resolve, RETRY_WAIT_MS[tries - 1]));
  }
}

/**
 * One monolithic upload: POST opens it, PUT with ?digest= sends the bytes and closes it; the
 * registry checks the digest. Null once the registry holds the blob, else the answer that failed.
 */
async function uploadOnce(
  target: PushTarget,
  digest: string,
  size: number,
  body: Readable | Buffer,
  what: 'layer' | 'config',
  /** A session opened ahead (openUploads); else one is opened here. */
  session?: string,
): Promise<RegistryReply | null> {
  let address = session;
  if (!address) {
    const opened = await openSession(target);
    address = sessionAddress(opened) ?? undefined;
    if (!address) {
      if (!Buffer.isBuffer(body)) body.destroy();
      return opened;
    }
  }
  const location = new URL(address, target.registryUrl);
  location.searchParams.set('digest', digest);
  const put = await registryRequest(location.toString(), {
    method: 'PUT',
    token: target.token,
    headers: { 'content-type': 'application/octet-stream', 'content-length': size },
    body,
  });
  if (put.status === 201) return null;
  if (registryErrors(put).includes('DIGEST_INVALID') || registryErrors(put).includes('SIZE_INVALID')) {
    throw new Refusal(
      `the registry refused ${what} ${digest}: its bytes do not match its digest (DIGEST_INVALID), so the image was not deployed`,
      'the image in your engine may be damaged: build it again (pitch deploy --force), or remove it and deploy',
    );
  }
  return put;
}

/** An upload session opened (POST, no body); sessionAddress reads where its bytes go. */
function openSession(target: PushTarget): Promise<RegistryReply> {
  return registryRequest(`${base(target)}/blobs/uploads/`, { method: 'POST', token: target.token, headers: { 'content-length': 0 } });
}

/** The opened session's address (its Location), or null when the registry did not open one. */
function sessionAddress(opened: RegistryReply): string | null {
  return opened.status === 202 && typeof opened.headers.location === 'string' ? opened.headers.location : null;
}

function refused(doing: string, reply: RegistryReply): Refusal {
  const errors = registryErrors(reply);
  const hint =
    reply.status === 401 || reply.status === 403
      ? 'the registry token does not grant this repository: sign in again (pitch login) and deploy'
      : undefined;
  return new Refusal(`${doing}: the registry answered ${reply.status}${errors ? ` ${errors}` : ''}`, hint);
}
