import { createReadStream, createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import type Docker from 'dockerode';
import { engineDial, progressError } from '../local-engine/engine-dial.js';
import { Refusal } from '../refusal.js';
import type { Finding } from '../scan/findings.js';
import { scanLayer, type BundleScan } from '../scan/scan-bundle.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import type { ImageLayer, ReadImage } from './read-image.js';
import { startReceivingRegistry, type ReceivedBlob } from './receiving-registry.js';

// The image read for a redeploy without `docker save` (issue 32): podman pushes the image to a
// registry this tool runs on 127.0.0.1 (receiving-registry.ts), which tells it the layers the
// platform already has are there. Podman then reads out of its storage only the layers that
// changed (it asks by diff id before it compresses anything), where a save writes the whole image
// first: 128 MB for the Node base, about a second on a quiet machine, two to four under load.
// What arrives is checked (each layer must unpack to the diff id the image's config names), the
// layers the build added are scanned, and all is kept on disk as read-image.ts keeps it: the push
// to the platform that follows is the same.
//
// Only podman is asked: Docker pushes every layer compressed to a registry it has not pushed to.
// An engine that cannot reach this machine's loopback (podman machine's VM, a remote engine)
// makes no request within `REACH_MS`: the deploy then reads the image with `docker save`.

/** The engine could not push here; the deploy reads the image the other way. Not a refusal. */
export class EnginePushUnavailable extends Error {}

/** A layer the platform holds: its size, and the workspace's other repository holding it when the project's own does not. */
export interface HeldLayer {
  size: number;
  mountFrom?: string;
}

export interface EnginePushOptions {
  /** Where the platform holds a blob (the project's repository, else another of the workspace's), or null when none does. */
  present: (digest: string) => Promise<HeldLayer | null>;
  spoolDir: string;
  scan: { scanner: SecretScanner; baseLayers: Set<string> };
}

/** The image as the engine describes it (inspect): id (config digest), diff ids, uncompressed size. */
export interface InspectedImage {
  id: string;
  diffIds: string[];
  size: number;
}

/** An engine that answers nothing within this long has not reached this machine's loopback. */
const REACH_MS = 2000;

const DECOMPRESS: Record<string, (() => Transform) | null> = {
  'application/vnd.oci.image.layer.v1.tar': null,
  'application/vnd.docker.image.rootfs.diff.tar': null,
  'application/vnd.oci.image.layer.v1.tar+gzip': () => zlib.createGunzip(),
  'application/vnd.docker.image.rootfs.diff.tar.gzip': () => zlib.createGunzip(),
};
// zstd (podman's `compression_format = "zstd"`) where this Node has it.
const zstd = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress;
if (zstd) DECOMPRESS['application/vnd.oci.image.layer.v1.tar+zstd'] = () => zstd();

export async function readImageByEnginePush(
  docker: Docker,
  tag: string,
  image: InspectedImage,
  options: EnginePushOptions,
): Promise<ReadImage> {
  // A sane push writes at most the image's own bytes (compressed, usually far fewer).
  const maxBytes = image.size + (64 << 20);
  const diffIds = new Set(image.diffIds);
  // Asked once a digest: the engine's HEAD and the image's assembly after it.
  const asked = new Map<string, Promise<HeldLayer | null>>();
  const present = (digest: string) => {
    if (!asked.has(digest)) asked.set(digest, options.present(digest));
    return asked.get(digest)!;
  };
  const registry = await startReceivingRegistry({
    spoolDir: options.spoolDir,
    maxBytes,
    // Only the image's own layers are said to be there: the config and anything else must come.
    claim: async (digest) => (diffIds.has(digest) ? ((await present(digest))?.size ?? null) : null),
  });
  const stop = new AbortController();
  try {
    const pushing = enginePush(docker, tag, `${registry.reference}:deploy`, stop.signal);
    pushing.catch(() => {});
    const reached = await Promise.race([registry.reached.then(() => true), sleep(REACH_MS).then(() => false)]);
    if (!reached) {
      stop.abort();
      throw new EnginePushUnavailable(`the engine did not reach ${registry.reference} within ${REACH_MS / 1000} s`);
    }
    await pushing;
    const manifest = registry.manifest();
    if (!manifest) throw new EnginePushUnavailable('the engine ended its push without a manifest');
    return await imageFromPush(manifest, registry.received, image, { ...options, present }, maxBytes);
  } finally {
    await registry.close();
  }
}

/** podman's push (libpod API): its progress lines, failed when one of them is an error. */
async function enginePush(docker: Docker, tag: string, destination: string, signal: AbortSignal): Promise<void> {
  const stream = (await engineDial(docker, {
    method: 'POST',
    path: `/v4.0.0/libpod/images/${encodeURIComponent(tag)}/push?`,
    query: { destination, tlsVerify: false, quiet: false },
    body: {},
    stream: true,
    signal,
    statusCodes: { 200: true, 404: 'no such image', 500: 'server error' },
  }).catch((err: unknown) => {
    throw new EnginePushUnavailable(`the engine's push was refused: ${(err as Error).message}`);
  })) as Readable;
  const error = await progressError(stream);
  if (error) throw new EnginePushUnavailable(`the engine's push failed: ${error}`);
}

interface PushedManifest {
  config?: { digest?: string };
  layers?: { digest?: string; mediaType?: string }[];
}

/**
 * The pushed image as the deploy sends it on: config checked against the image id, each layer in
 * the config's order either the platform's (claimed) or received, unpacked to its diff id, and scanned
 * when the build added it.
 */
export async function imageFromPush(
  manifestBytes: Buffer,
  received: Map<string, ReceivedBlob>,
  image: InspectedImage,
  options: EnginePushOptions,
  maxBytes: number,
): Promise<ReadImage> {
  const manifest = pushedJson<PushedManifest>(manifestBytes, 'manifest');
  const configDigest = manifest.config?.digest ?? '';
  const configBlob = received.get(configDigest);
  if (!configBlob) throw new EnginePushUnavailable('the engine pushed no image config');
  const config = await readFile(configBlob.file);
  await rm(configBlob.file, { force: true });
  if (configDigest !== normalId(image.id))
    throw new EnginePushUnavailable(`the engine pushed the config ${configDigest}, not the image's own ${image.id}`);
  const diffIds = pushedJson<{ rootfs?: { diff_ids?: string[] } }>(config, 'config').rootfs?.diff_ids ?? [];
  const pushed = manifest.layers ?? [];
  if (pushed.length !== diffIds.length) throw new EnginePushUnavailable('the pushed manifest and config disagree on the layers');

  const scan: BundleScan = { layers: 0, baseLayers: 0, files: 0, findings: [] };
  const layers: ImageLayer[] = [];
  const fromEngine = { layers: 0, bytes: 0 };
  for (const [index, diffId] of diffIds.entries()) {
    const layer = pushed[index];
    // The same layer twice in one image (two steps that made the same files) is unpacked once.
    const again = layers.find((earlier) => earlier.digest === diffId);
    if (again) {
      layers.push({ ...again });
      continue;
    }
    const added = !options.scan.baseLayers.has(diffId.replace(/^sha256:/, ''));
    if (added) scan.layers++;
    else scan.baseLayers++;
    const blob = layer.digest ? received.get(layer.digest) : undefined;
    if (!blob) {
      // Not sent: the push was told the platform has it (scanned by the deploy that sent it there),
      // in the project's repository or in another of the workspace's (mounted from there at the push).
      const held = layer.digest === diffId ? await options.present(diffId) : null;
      if (held === null) throw new EnginePushUnavailable(`the engine pushed no layer ${index + 1} (${diffId})`);
      layers.push({ digest: diffId, size: held.size, file: null, ...(held.mountFrom ? { mountFrom: held.mountFrom } : {}) });
      continue;
    }
    fromEngine.layers++;
    fromEngine.bytes += blob.size;
    const file = join(options.spoolDir, `${diffId.slice(7)}.tar`);
    const size = await unpackLayer(blob, layer.mediaType ?? '', diffId, file, maxBytes);
    await rm(blob.file, { force: true });
    if (added) {
      const found: Finding[] = [];
      await scanLayer(options.scan.scanner, createReadStream(file), scan, found);
      scan.findings.push(...found);
    }
    layers.push({ digest: diffId, size, file });
  }
  return { config, configDigest, configSize: config.length, layers, scan, fromEngine };
}

/** A received layer written out uncompressed: its bytes must hash to the diff id the config names. */
async function unpackLayer(blob: ReceivedBlob, mediaType: string, diffId: string, file: string, maxBytes: number): Promise<number> {
  if (!(mediaType in DECOMPRESS)) throw new EnginePushUnavailable(`the engine pushed a layer as ${mediaType}`);
  const decompress = DECOMPRESS[mediaType];
  const hash = createHash('sha256');
  let size = 0;
  const count = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes) throw new Refusal(`a layer the engine pushed unpacks to more than the image's ${maxBytes} bytes`);
      hash.update(chunk);
      yield chunk;
    }
  };
  const source = createReadStream(blob.file);
  if (decompress) await pipeline(source, decompress(), count, createWriteStream(file));
  else await pipeline(source, count, createWriteStream(file));
  if (`sha256:${hash.digest('hex')}` !== diffId) {
    throw new Refusal(
      `a layer the engine pushed does not unpack to its diff id ${diffId}, so the image was not deployed`,
      'the image in your engine may be damaged: build it again (pitch deploy --force), or remove it and deploy',
    );
  }
  return size;
}

/** A pushed manifest or config read as JSON; one that is not leaves the image to the save. */
function pushedJson<T>(bytes: Buffer, what: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    throw new EnginePushUnavailable(`the engine pushed a ${what} that is not JSON`);
  }
}

const normalId = (id: string) => (id.startsWith('sha256:') ? id : `sha256:${id}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
