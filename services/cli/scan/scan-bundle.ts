import { buffer } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import type { Finding } from './findings.js';
import type { SecretScanner } from './secret-scan.js';
import { SKIPPED_FOLDERS } from './walk-files.js';

// The container bundle is `docker save` output: a tar whose layers are tars themselves. Each layer
// the build added is read file by file and scanned; the base image's layers are passed over, as
// they are what `FROM` names, not the builder's files.

export interface BundleScan {
  layers: number;
  baseLayers: number;
  files: number;
  findings: Finding[];
}

/** A file larger than a static build may hold (32 MiB) is not a config file anyone wrote by hand. */
const MAX_TEXT_BYTES = 32 * 1024 * 1024;

function skippedPath(path: string): boolean {
  const parts = path.replace(/^\.?\//, '').split('/');
  const name = parts.at(-1) ?? '';
  return parts.some((part) => SKIPPED_FOLDERS.has(part)) || name.startsWith('.wh.');
}

/**
 * A layer's bytes, gunzipped when they come compressed (some engines' archives do), or null when
 * the entry is no tar at all (an OCI blob holding a manifest or config): then it is drained.
 */
async function layerBytes(entry: AsyncIterable<unknown>): Promise<Readable | null> {
  const iterator = entry[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return null;
  const head = first.value as Buffer;
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  const rest = Readable.from(
    (async function* () {
      yield head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
    })(),
  );
  if (gzipped) return rest.pipe(createGunzip());
  if (head.toString('latin1', 257, 262) === 'ustar') return rest;
  rest.resume();
  await new Promise((resolve) => rest.on('end', resolve));
  return null;
}

/** Scans one layer's files; answers the layer's diff id (sha256 of its uncompressed tar), or null for no layer. */
export async function scanLayer(
  scanner: SecretScanner,
  entry: AsyncIterable<unknown>,
  out: BundleScan,
  found: Finding[],
): Promise<string | null> {
  const source = await layerBytes(entry);
  if (!source) return null;
  const hash = createHash('sha256');
  source.on('data', (chunk: Buffer) => hash.update(chunk));
  const files = tar.extract();
  const feeding = pipeline(source, files);
  for await (const file of files) {
    const { name, type, size = 0 } = file.header;
    if (type !== 'file' || skippedPath(name) || size > MAX_TEXT_BYTES) {
      file.resume();
      continue;
    }
    const bytes = await buffer(file);
    if (bytes.subarray(0, 8192).includes(0)) continue;
    out.files++;
    found.push(...(await scanner.scanText(`image /${name.replace(/^\.?\//, '')}`, bytes.toString('utf8'))));
  }
  await feeding;
  return hash.digest('hex');
}

const LAYER_NAME = /(^|\/)layer\.tar$|^[0-9a-f]{64}\.tar$|^blobs\/sha256\/[0-9a-f]{64}$/;

/**
 * Scans a bundle as it streams past. `baseLayers` are the diff ids (hex) of the base image's
 * layers: skipped unread when the entry's name gives them away (podman names layers by diff id),
 * else read and their findings dropped once their hash shows they are the base's.
 */
export async function scanBundle(scanner: SecretScanner, bundle: Readable, baseLayers: Set<string>): Promise<BundleScan> {
  const out: BundleScan = { layers: 0, baseLayers: 0, files: 0, findings: [] };
  const archive = tar.extract();
  const feeding = pipeline(bundle, archive);
  for await (const entry of archive) {
    const { name, type } = entry.header;
    const isLayer = type === 'file' && LAYER_NAME.test(name) && !name.endsWith('.json');
    const named = [...baseLayers].some((id) => name.includes(id));
    if (!isLayer || named) {
      if (isLayer) out.baseLayers++;
      entry.resume();
      continue;
    }
    const found: Finding[] = [];
    const diffId = await scanLayer(scanner, entry, out, found);
    if (diffId === null) continue;
    if (baseLayers.has(diffId)) out.baseLayers++;
    else {
      out.layers++;
      out.findings.push(...found);
    }
  }
  await feeding;
  return out;
}
