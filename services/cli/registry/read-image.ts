import { createReadStream, createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { Refusal } from '../refusal.js';
import type { Finding } from '../scan/findings.js';
import { scanLayer, type BundleScan } from '../scan/scan-bundle.js';
import type { SecretScanner } from '../scan/secret-scan.js';

// One read of the image out of the engine (`docker save`), for both the scan and the push (issue
// 32): the engine writes the whole image (128 MB for the Node base) before it sends a byte, so
// every read costs about a second whatever is kept of it. As the archive streams past, the layers
// the build added are scanned; the layers the registry lacks are written to `spoolDir`, to be sent
// once the scan and the rehearsal have passed (nothing of the builder's leaves before); the layers
// it has are passed over. The archive is a docker-archive as podman writes it: layers named
// `<diff id>.tar`, the config `<image id>.json`, and a manifest.json of one image.

/** One layer of the image, in order: its digest (sha256 of its uncompressed tar), size, and where its bytes wait. */
export interface ImageLayer {
  digest: string;
  size: number;
  /** The spooled bytes; null when the registry had the layer as the image was read (nothing to send). */
  file: string | null;
  /**
   * The workspace's other repository that held the layer as the image was read, the project's own
   * lacking it: the push mounts it from there (its bytes were never read out of the engine).
   */
  mountFrom?: string;
}

export interface ReadImage {
  /** The config's bytes; null when the image was not read, the registry having it (imageInRegistry). */
  config: Buffer | null;
  configDigest: string;
  configSize: number;
  layers: ImageLayer[];
  /** The scan of the layers the build added (none without `scan`). */
  scan: BundleScan;
  /** When the engine pushed the image to this tool (engine-push.ts): the layers it sent, and their bytes as sent. */
  fromEngine?: { layers: number; bytes: number };
}

export interface ReadImageOptions {
  /** Whether the registry already has a blob: its layer is then passed over (and scanned only when the build added it). */
  present: (digest: string) => Promise<boolean>;
  /** Where the missing layers' bytes wait until they are sent. */
  spoolDir: string;
  /** The secret scan of the layers the build added: all but `baseLayers` (the FROM image's diff ids, hex). */
  scan?: { scanner: SecretScanner; baseLayers: Set<string> };
}

const BLOB = /^([0-9a-f]{64})\.(tar|json)$/;

/** A manifest.json of a docker-archive: one image, its config and layers by file name. */
interface ArchiveImage {
  Config: string;
  Layers: string[];
}

export async function readImage(archive: Readable, options: ReadImageOptions): Promise<ReadImage> {
  const scan: BundleScan = { layers: 0, baseLayers: 0, files: 0, findings: [] };
  const layers = new Map<string, ImageLayer>(); // by file name
  let config: Buffer | null = null;
  let manifestFile: Buffer | null = null;

  const extract = tar.extract();
  const feeding = pipeline(archive, extract);
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      const blob = entry.header.type === 'file' ? BLOB.exec(name) : null;
      if (name === 'manifest.json' || blob?.[2] === 'json') {
        const bytes = await small(entry, 4 << 20, name);
        if (name === 'manifest.json') manifestFile = bytes;
        else config = bytes;
        continue;
      }
      if (!blob) {
        entry.resume();
        continue;
      }
      const digest = `sha256:${blob[1]}`;
      const size = entry.header.size ?? 0;
      const added = options.scan ? !options.scan.baseLayers.has(blob[1]) : false;
      if (options.scan) {
        if (added) scan.layers++;
        else scan.baseLayers++;
      }
      if (await options.present(digest)) {
        layers.set(name, { digest, size, file: null });
        if (added && options.scan) await scanInto(options.scan.scanner, entry, scan);
        else entry.resume();
        continue;
      }
      const file = join(options.spoolDir, `${blob[1]}.tar`);
      await pipeline(entry, createWriteStream(file));
      layers.set(name, { digest, size, file });
      if (added && options.scan) await scanInto(options.scan.scanner, createReadStream(file), scan);
    }
    await feeding;
  } catch (err) {
    archive.destroy(err as Error);
    await feeding.catch(() => {});
    throw err;
  }

  const image = oneImage(manifestFile);
  if (!config) throw new Refusal('the saved image has no config file: the engine gave an archive that is not one image');
  const configBytes: Buffer = config;
  const configDigest = `sha256:${createHash('sha256').update(configBytes).digest('hex')}`;
  if (`${configDigest.slice(7)}.json` !== image.Config)
    throw new Refusal(`the saved image's config is not the file its manifest names (${image.Config})`);
  const ordered = image.Layers.map((file) => {
    const layer = layers.get(file);
    if (!layer) throw new Refusal(`the saved image names the layer ${file}, which its archive does not hold`);
    return layer;
  });
  return { config: configBytes, configDigest, configSize: configBytes.length, layers: ordered, scan };
}

/** Scans one layer the build added; its findings count only when it is a layer (a tar). */
async function scanInto(scanner: SecretScanner, bytes: AsyncIterable<unknown>, scan: BundleScan): Promise<void> {
  const found: Finding[] = [];
  if ((await scanLayer(scanner, bytes, scan, found)) !== null) scan.findings.push(...found);
}

/** A small entry (the manifest, the config) kept whole, within `max` bytes. */
async function small(entry: AsyncIterable<unknown>, max: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Refusal(`the saved image's ${name} is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
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
