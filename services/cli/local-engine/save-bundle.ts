import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import { readDockerfile, rootImage } from '@demo-rooms/contract/manifest';
import { Refusal } from '../refusal.js';
import { scanBundle, type BundleScan } from '../scan/scan-bundle.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { GZIP_LEVEL } from '../deploy-steps/gzip-level.js';
import { parallelGzip } from '../deploy-steps/parallel-gzip.js';
import { engineMessage } from './engine-message.js';

/**
 * The diff ids (hex) of the layers the Dockerfile's last stage starts from: the image its FROM
 * chain ends at, as the engine has it. Empty when that cannot be told (a FROM given by a build
 * argument without a default, `scratch`): then every layer is scanned.
 */
export async function baseLayersOf(docker: Docker, dockerfile: string): Promise<Set<string>> {
  const stages = readDockerfile(dockerfile);
  const last = stages.at(-1);
  const base = last ? rootImage(stages, last) : null;
  if (!base || base === 'scratch') return new Set();
  try {
    const info = await docker.getImage(base).inspect();
    return new Set((info.RootFS?.Layers ?? []).map((layer) => layer.replace(/^sha256:/, '')));
  } catch {
    return new Set();
  }
}

export interface SavedBundle {
  sizeBytes: number;
  scan: BundleScan;
}

/**
 * `docker save` of the image, gzipped into `file` (the bundle a platform without a registry
 * takes), and in the same pass the scan of the layers the build added: the image is read from the
 * engine once. A platform with a registry takes the image pushed instead (registry/read-image.ts).
 */
export async function saveBundle(
  docker: Docker,
  tag: string,
  file: string,
  scanner: SecretScanner,
  baseLayers: Set<string>,
): Promise<SavedBundle> {
  let source: Readable;
  try {
    source = (await docker.getImage(tag).get()) as Readable;
  } catch (err) {
    throw new Refusal(`the engine could not save the image: ${engineMessage(err)}`);
  }
  const toFile = new PassThrough({ highWaterMark: 1 << 20 });
  const toScan = new PassThrough({ highWaterMark: 1 << 20 });
  source.pipe(toFile);
  source.pipe(toScan);
  const stop = (err: Error) => {
    source.destroy(err);
    toFile.destroy(err);
    toScan.destroy(err);
  };
  source.on('error', stop);
  // Either side failing stops both, so neither waits for bytes the other no longer takes.
  const [scan] = await Promise.all([
    scanBundle(scanner, toScan, baseLayers).catch((err: Error) => {
      stop(err);
      throw err;
    }),
    pipeline(toFile, parallelGzip(GZIP_LEVEL), createWriteStream(file)).catch((err: Error) => {
      stop(err);
      throw err;
    }),
  ]);
  return { sizeBytes: (await stat(file)).size, scan };
}
