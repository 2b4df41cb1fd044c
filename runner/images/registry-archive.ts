import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { readBlob, readManifest, registryGet, type Registry } from '../../services/core/infra/registry/registry-pull.js';

// A pushed build's image as the engine loads it (issue 32): its manifest and config from the
// registry, its layers streamed from the registry one after the other into a docker-archive
// (`<diff id>.tar` each, the config as `<image id>.json`, a manifest.json without tags), the
// archive the tarball builds arrive as. Only a host without the image reads it: prepare asks the
// engine for the recorded image id first (docker-prepare.ts).

const MAX_MANIFEST_BYTES = 1024 * 1024;
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export async function registryArchive(registry: Registry, repository: string, digest: string): Promise<{ body: Readable; size: number }> {
  const manifest = JSON.parse((await readManifest(registry, repository, digest, MAX_MANIFEST_BYTES)).toString('utf8')) as {
    config: { digest: string };
    layers: { digest: string; size: number }[];
  };
  const config = await readBlob(registry, repository, manifest.config.digest, MAX_CONFIG_BYTES);
  const configFile = `${manifest.config.digest.slice(7)}.json`;
  const layerFiles = manifest.layers.map((layer) => `${layer.digest.slice(7)}.tar`);
  const pack = tar.pack();
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const size = manifest.layers.reduce((n, layer) => n + layer.size + 1024, config.length + 4096);
  const write = async () => {
    pack.entry({ name: configFile, size: config.length }, config);
    for (const [i, layer] of manifest.layers.entries()) {
      const res = await registryGet(registry, repository, `blobs/${layer.digest}`);
      const entry = pack.entry({ name: layerFiles[i], size: layer.size });
      await pipeline(Readable.fromWeb(res.body as never), entry);
    }
    pack.entry({ name: 'manifest.json' }, JSON.stringify([{ Config: configFile, RepoTags: null, Layers: layerFiles }]));
    pack.finalize();
  };
  write().catch((err: Error) => pack.destroy(err));
  pack.on('error', (err) => out.destroy(err));
  pack.pipe(out);
  return { body: out, size };
}
