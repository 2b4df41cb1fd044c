import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';

// A container bundle is `docker save` (or `podman save`) output, gzipped. It is never unpacked on
// the platform: it is read once to learn the image's start command, then loaded into the engine.

export class BundleRefusal extends Error {}

export interface BundleImage {
  repoTags: string[];
  configFile: string;
  cmd: string[] | null;
  entrypoint: string[] | null;
  workingDir: string | null;
  env: string[];
  exposedPorts: string[];
  layers: number;
}

/** Small JSON files are kept while the stream passes; layers are drained without being held. */
const keepUnder = 4 * 1024 * 1024;

export async function readBundle(source: Readable): Promise<BundleImage> {
  const small = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const name = header.name.replace(/^\.\//, '');
    if (header.type === 'file' && (header.size ?? 0) <= keepUnder && (name.endsWith('.json') || name.startsWith('blobs/') || !name.includes('/'))) {
      const chunks: Buffer[] = [];
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('end', () => {
        small.set(name, Buffer.concat(chunks));
        next();
      });
    } else {
      stream.on('end', () => next());
      stream.resume();
    }
  });
  try {
    await pipeline(source, createGunzip(), extract);
  } catch (err) {
    throw new BundleRefusal(`the bundle is not a gzipped image archive (${(err as Error).message})`);
  }

  const manifestFile = small.get('manifest.json');
  if (!manifestFile) throw new BundleRefusal('the bundle has no manifest.json: make it with docker save or podman save');
  let entries: { Config: string; RepoTags?: string[] | null; Layers: string[] }[];
  try {
    entries = JSON.parse(manifestFile.toString('utf8'));
  } catch {
    throw new BundleRefusal('the bundle\'s manifest.json is not JSON');
  }
  if (!Array.isArray(entries) || entries.length !== 1) throw new BundleRefusal(`the bundle must hold exactly one image, not ${Array.isArray(entries) ? entries.length : 0}`);
  const [entry] = entries;
  const configBytes = small.get(entry.Config);
  if (!configBytes) throw new BundleRefusal(`the bundle lacks its image config ${entry.Config}`);
  let config: { config?: { Cmd?: string[] | null; Entrypoint?: string[] | null; WorkingDir?: string; Env?: string[]; ExposedPorts?: Record<string, unknown> } };
  try {
    config = JSON.parse(configBytes.toString('utf8'));
  } catch {
    throw new BundleRefusal('the image config is not JSON');
  }
  const c = config.config ?? {};
  return {
    repoTags: entry.RepoTags ?? [],
    configFile: entry.Config,
    cmd: c.Cmd?.length ? c.Cmd : null,
    entrypoint: c.Entrypoint?.length ? c.Entrypoint : null,
    workingDir: c.WorkingDir || null,
    env: c.Env ?? [],
    exposedPorts: Object.keys(c.ExposedPorts ?? {}),
    layers: entry.Layers?.length ?? 0,
  };
}
