import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ArchiveRefusal } from '../archive-unpack/archive-rules.js';
import { checkEntryPath, foldPath } from '../archive-unpack/entry-path.js';

// A container bundle is `podman save --format docker-archive` (or `docker save` before OCI
// layouts), gzipped. It is never unpacked on the platform: it is read once, here, to learn the
// image and its start command, then loaded into the engine by the runner.
//
// The engine reads the archive with its own tar reader and matches names after cleaning them
// (Go's path.Clean), taking the first match. So a name this check read one way must not be
// readable another: every name is normalised as the static unpacker does (entry-path.ts), must
// already be spelt that way, and may not collide with another after case folding. The bundle
// must hold exactly one image: one manifest entry, its config, the layers it names, and nothing
// else but podman's legacy per-layer folders. Its tags are never used (the runner strips them and
// tags the image by its id, the config's digest, recorded here), and an OCI index is refused.

export class BundleRefusal extends Error {}

export interface BundleLimits {
  /** Entries of any kind, at most. */
  maxEntries: number;
  /** Bytes of small JSON files (manifest, config candidates) held in memory at once, at most. */
  maxHeldBytes: number;
  /** Bytes of the tar inside the gzip, at most. */
  maxUnpackedBytes: number;
}

export interface BundleImage {
  /** The image id the engine will give it: sha256 of the config's bytes. */
  id: string;
  configFile: string;
  cmd: string[] | null;
  entrypoint: string[] | null;
  workingDir: string | null;
  env: string[];
  exposedPorts: string[];
  layers: number;
  /** Bytes of the unpacked archive: what the engine's host reads and stores on load. */
  archiveBytes: number;
}

/** One JSON file larger than this is never a manifest or config of ours: it is not held. */
const keepUnder = 4 * 1024 * 1024;
const HEX64 = '[0-9a-f]{64}';
/** podman's legacy per-layer folder: `<id>/VERSION`, `<id>/json`, `<id>/layer.tar` (a symlink). */
const LEGACY_FILE = new RegExp(`^${HEX64}/(VERSION|json)$`);
const LEGACY_LINK = new RegExp(`^${HEX64}/layer\\.tar$`);
const LEGACY_DIR = new RegExp(`^${HEX64}$`);
/** Names the engine reads for tags or a second layout; only `manifest.json` is ours to read. */
const OCI_NAMES = new Set(['index.json', 'oci-layout']);
const ROOT_NAMES = new Set(['manifest.json', 'repositories']);

interface Entry {
  path: string;
  type: 'file' | 'directory' | 'symlink';
  /** For a symlink: the target, resolved from its folder. */
  target?: string;
}

export async function readBundle(source: Readable, limits: BundleLimits): Promise<BundleImage> {
  const entries = new Map<string, Entry>(); // by folded path
  const held = new Map<string, Buffer>(); // by path
  let heldBytes = 0;
  let unpacked = 0;
  let refusal: BundleRefusal | null = null;

  const extract = tar.extract();
  const gunzip = createGunzip();
  // The first refusal settles the read and stops every stream at once: nothing more is read or
  // held (tar-stream's streams do not always end a pipeline when destroyed from an entry).
  let stop!: (err: BundleRefusal) => void;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = (err) => {
      reject(err);
      for (const s of [source, gunzip, counter, extract]) s.destroy();
    };
  });
  stopped.catch(() => {});
  const refuse = (why: string) => {
    if (refusal) return;
    refusal = new BundleRefusal(why);
    stop(refusal);
  };
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      unpacked += chunk.length;
      if (unpacked > limits.maxUnpackedBytes) return refuse(`the bundle unpacks to more than ${limits.maxUnpackedBytes} bytes`);
      done(null, chunk);
    },
  });

  extract.on('entry', (header, stream, next) => {
    stream.on('error', () => {});
    const drain = () => {
      stream.on('end', () => next());
      stream.resume();
    };
    if (entries.size >= limits.maxEntries) return refuse(`the bundle has more than ${limits.maxEntries} entries`);
    const type = header.type === 'file' || header.type === 'directory' || header.type === 'symlink' ? header.type : null;
    if (!type)
      return refuse(`${JSON.stringify(header.name)}: a bundle holds files, folders and podman's layer links only, not ${header.type}`);
    let path: string;
    try {
      path = checkEntryPath(header.name, type === 'directory' ? 'directory' : 'file');
    } catch (err) {
      return refuse(err instanceof ArchiveRefusal ? err.detail : String(err));
    }
    // The engine cleans names before matching them; we ask that they arrive clean.
    if (header.name !== path && !(type === 'directory' && header.name === `${path}/`)) {
      return refuse(`${JSON.stringify(header.name)}: a bundle entry must be spelt ${JSON.stringify(path)}`);
    }
    const key = foldPath(path);
    if (entries.has(key))
      return refuse(
        `${JSON.stringify(header.name)}: the bundle names this entry twice (names are compared after normalising and case folding)`,
      );
    if (OCI_NAMES.has(key))
      return refuse(
        `${JSON.stringify(header.name)}: an OCI image layout is not accepted; save the image with podman save --format docker-archive`,
      );
    if (ROOT_NAMES.has(key) && path !== key) return refuse(`${JSON.stringify(header.name)}: must be spelt ${key}`);
    const entry: Entry = { path, type };
    if (type === 'symlink') {
      // podman links each legacy `<id>/layer.tar` to a top-level `<digest>.tar`: nothing else.
      const target = header.linkname ?? '';
      if (!LEGACY_LINK.test(path) || !target.startsWith('../') || target.slice(3).includes('/')) {
        return refuse(`${JSON.stringify(header.name)}: a bundle may link only a layer folder's layer.tar to a layer`);
      }
      entry.target = target.slice(3);
    }
    entries.set(key, entry);

    const size = header.size ?? 0;
    if (type === 'file' && size <= keepUnder && (path === 'manifest.json' || (!path.includes('/') && path.endsWith('.json')))) {
      if (heldBytes + size > limits.maxHeldBytes) return refuse(`the bundle's JSON files come to more than ${limits.maxHeldBytes} bytes`);
      heldBytes += size;
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        held.set(path, Buffer.concat(chunks));
        next();
      });
      return;
    }
    drain();
  });

  try {
    await Promise.race([pipeline(source, gunzip, counter, extract), stopped]);
  } catch (err) {
    if (refusal) throw refusal;
    throw new BundleRefusal(`the bundle is not a gzipped image archive (${(err as Error).message})`);
  }
  if (refusal) throw refusal;
  return judge(entries, held, unpacked);
}

/** The whole archive has been read: exactly one image, every entry accounted for. */
function judge(entries: Map<string, Entry>, held: Map<string, Buffer>, archiveBytes: number): BundleImage {
  const manifestFile = held.get('manifest.json');
  if (!manifestFile) throw new BundleRefusal('the bundle has no manifest.json: make it with docker save or podman save');
  let list: unknown;
  try {
    list = JSON.parse(manifestFile.toString('utf8'));
  } catch {
    throw new BundleRefusal("the bundle's manifest.json is not JSON");
  }
  if (!Array.isArray(list) || list.length !== 1)
    throw new BundleRefusal(`the bundle must hold exactly one image, not ${Array.isArray(list) ? list.length : 0}`);
  const image = list[0] as { Config?: unknown; Layers?: unknown };
  if (typeof image.Config !== 'string' || !Array.isArray(image.Layers) || !image.Layers.every((l) => typeof l === 'string')) {
    throw new BundleRefusal("the bundle's manifest.json must name a Config and its Layers");
  }
  const named = (name: string) => {
    const entry = entries.get(foldPath(name));
    if (!entry || entry.path !== name)
      throw new BundleRefusal(`the bundle's manifest.json names ${JSON.stringify(name)}, which the bundle does not hold under that name`);
    return entry;
  };
  const configFile = image.Config;
  named(configFile);
  const configBytes = held.get(configFile);
  if (!configBytes) throw new BundleRefusal(`the image config ${JSON.stringify(configFile)} must be a JSON file at the top of the bundle`);
  const layers = new Set<string>();
  for (const layer of image.Layers as string[]) {
    const entry = named(layer);
    if (entry.type === 'symlink') {
      const target = entries.get(foldPath(entry.target!));
      if (!target || target.type !== 'file') throw new BundleRefusal(`the layer ${JSON.stringify(layer)} links to nothing in the bundle`);
      layers.add(target.path);
    } else if (entry.type !== 'file') {
      throw new BundleRefusal(`the layer ${JSON.stringify(layer)} is not a file`);
    }
    layers.add(entry.path);
  }
  for (const entry of entries.values()) {
    const p = entry.path;
    const known =
      ROOT_NAMES.has(p) ||
      p === configFile ||
      layers.has(p) ||
      (entry.type === 'directory' && LEGACY_DIR.test(p)) ||
      (entry.type === 'file' && LEGACY_FILE.test(p)) ||
      (entry.type === 'symlink' && layers.has(entry.target!));
    if (!known) throw new BundleRefusal(`${JSON.stringify(p)}: the bundle holds something its one image does not name`);
  }

  return { ...describeConfig(configBytes), configFile, layers: (image.Layers as string[]).length, archiveBytes };
}

/** What the platform reads of an image's config: its id (the sha256 of these bytes) and how it starts. */
export function describeConfig(configBytes: Buffer): Omit<BundleImage, 'configFile' | 'layers' | 'archiveBytes'> {
  let config: {
    config?: {
      Cmd?: string[] | null;
      Entrypoint?: string[] | null;
      WorkingDir?: string;
      Env?: string[];
      ExposedPorts?: Record<string, unknown>;
    };
  };
  try {
    config = JSON.parse(configBytes.toString('utf8'));
  } catch {
    throw new BundleRefusal('the image config is not JSON');
  }
  const c = config.config ?? {};
  return {
    id: `sha256:${createHash('sha256').update(configBytes).digest('hex')}`,
    cmd: c.Cmd?.length ? c.Cmd : null,
    entrypoint: c.Entrypoint?.length ? c.Entrypoint : null,
    workingDir: c.WorkingDir || null,
    env: c.Env ?? [],
    exposedPorts: Object.keys(c.ExposedPorts ?? {}),
  };
}
