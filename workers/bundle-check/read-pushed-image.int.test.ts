import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { registryDelete, registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { signRegistryToken } from '../../services/core/infra/registry/registry-token.js';
import { flakyGateway } from '../../test/support/flaky-gateway.js';
import { testEnv } from '../../test/support/services.js';
import { BundleRefusal } from './read-bundle.js';
import { readPushedImage } from './read-pushed-image.js';

// Issue 45, L1: Distribution 2.8 takes a manifest whatever sizes it declares for its layers. The
// bundle check compares each declared size with the stored blob's before it adds them up against
// the unpacked limit. Against the real registry.

const registry = registryOf(loadConfig(testEnv()))!;
const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const tokenFor = (repository: string) =>
  signRegistryToken(registry.key, {
    subject: 'test',
    access: [{ type: 'repository', name: repository, actions: ['pull', 'push'] }],
    ttlSeconds: 300,
  }).token;

const push = (repository: string, path: string, init: RequestInit) =>
  fetch(`${registry.url}/v2/${repository}/${path}`, {
    ...init,
    headers: { authorization: `Bearer ${tokenFor(repository)}`, ...init.headers },
  });

async function pushBlob(repository: string, bytes: Buffer) {
  const opened = await push(repository, 'blobs/uploads/', { method: 'POST' });
  expect(opened.status).toBe(202);
  const location = new URL(opened.headers.get('location')!, registry.url);
  location.searchParams.set('digest', sha(bytes));
  const put = await fetch(location, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tokenFor(repository)}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
  expect(put.status).toBe(201);
}

/** An image of these layers pushed to a new repository, each layer declared at `declared` (its own size by default). */
async function pushImage(layers: Buffer[], declared: (layer: Buffer) => number = (layer) => layer.length) {
  const repository = `${randomUUID()}/${randomUUID()}`;
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['node'] },
      rootfs: { type: 'layers', diff_ids: layers.map(sha) },
    }),
  );
  for (const blob of [...layers, config]) await pushBlob(repository, blob);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: config.length, digest: sha(config) },
      layers: layers.map((layer) => ({
        mediaType: 'application/vnd.docker.image.rootfs.diff.tar',
        size: declared(layer),
        digest: sha(layer),
      })),
    }),
  );
  const put = await push(repository, `manifests/${sha(manifest)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' },
    body: new Uint8Array(manifest),
  });
  expect(put.status).toBe(201);
  return { repository, digest: sha(manifest), text: manifest.toString('utf8') };
}

const LIMITS = { maxEntries: 100, maxHeldBytes: 1024 * 1024, maxUnpackedBytes: 1024 * 1024 };

describe('a layer size an earlier check read (checked_blob_sizes)', () => {
  it('is not asked of the registry again: only the other layers are, and their sizes come back to be kept', async () => {
    const [base, code] = [randomBytes(4096), randomBytes(512)];
    const image = await pushImage([base, code]);
    const asked: string[][] = [];
    const read = await readPushedImage(registry, image.repository, image.digest, LIMITS, async (digests) => {
      asked.push(digests);
      return new Map([[sha(base), base.length]]);
    });
    expect(asked).toEqual([[sha(base), sha(code)]]);
    expect(read.sizesRead).toEqual(new Map([[sha(code), code.length]]));
    expect(read.archiveBytes).toBeGreaterThan(base.length + code.length);
  });

  it('refuses a layer declared at another size than the one read before, without asking the registry', async () => {
    const layer = randomBytes(2048);
    // Declared one byte short: the registry would say 2048; the size read before says 2048 too.
    const image = await pushImage([layer], (l) => l.length - 1);
    const read = readPushedImage(registry, image.repository, image.digest, LIMITS, async () => new Map([[sha(layer), 2048]]));
    await expect(read).rejects.toThrow(`is declared as 2047 bytes, but its blob has 2048`);
  });

  it('asks for every layer when no earlier check read any, and gives them all to be kept', async () => {
    const [one, two] = [randomBytes(100), randomBytes(200)];
    const image = await pushImage([one, two]);
    const read = await readPushedImage(registry, image.repository, image.digest, LIMITS);
    expect(read.sizesRead).toEqual(
      new Map([
        [sha(one), 100],
        [sha(two), 200],
      ]),
    );
  });
});

describe('a pushed image read for the bundle check (issue 45, L1)', () => {
  it('refuses a layer whose declared size is not its blob’s, before any limit is applied', async () => {
    const repository = `${randomUUID()}/${randomUUID()}`;
    const layer = randomBytes(64 * 1024);
    const config = Buffer.from(
      JSON.stringify({ architecture: 'amd64', os: 'linux', config: {}, rootfs: { type: 'layers', diff_ids: [sha(layer)] } }),
    );
    await pushBlob(repository, layer);
    await pushBlob(repository, config);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: config.length, digest: sha(config) },
        // 64 KiB declared as one byte: within the limit below by its word, far past it by its bytes.
        layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar', size: 1, digest: sha(layer) }],
      }),
    );
    const put = await push(repository, `manifests/${sha(manifest)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' },
      body: new Uint8Array(manifest),
    });
    // The registry takes it: the size is not its question.
    expect(put.status).toBe(201);
    const limits = { maxEntries: 100, maxHeldBytes: 1024 * 1024, maxUnpackedBytes: 1024 };
    const read = readPushedImage(registry, repository, sha(manifest), limits);
    await expect(read).rejects.toBeInstanceOf(BundleRefusal);
    await expect(read).rejects.toThrow(`is declared as 1 bytes, but its blob has ${layer.length}`);
  });
});

/** The registry behind the tests' gateway, passing every request on and noting each one's method and path kind. */
async function watchedRegistry() {
  const seen: string[] = [];
  const gateway = await flakyGateway(registry.url, (req) => {
    seen.push(`${req.method} ${/\/(manifests|blobs)\//.exec(req.url ?? '')?.[1] ?? req.url}`);
    return 'pass';
  });
  return { watched: { ...registry, url: gateway.origin }, seen, close: gateway.close };
}

describe("the manifest's text sent with createBuild", () => {
  it("is taken when its digest agrees: the registry is asked only whether it holds it, and the image is described as from the registry's own", async () => {
    const image = await pushImage([randomBytes(2048), randomBytes(256)]);
    const { watched, seen, close } = await watchedRegistry();
    try {
      const read = await readPushedImage(watched, image.repository, image.digest, LIMITS);
      expect(seen).toContain('GET manifests');
      seen.length = 0;
      const sent = await readPushedImage(watched, image.repository, image.digest, LIMITS, undefined, image.text);
      expect(seen).not.toContain('GET manifests');
      expect(seen).toContain('HEAD manifests');
      expect(sent).toEqual(read);
      expect(sent.layers).toBe(2);
    } finally {
      await close();
    }
  });

  it("is ignored when it is another manifest's: the registry's is read", async () => {
    const image = await pushImage([randomBytes(1024)]);
    const other = await pushImage([randomBytes(1024), randomBytes(1024), randomBytes(1024)]);
    const described = await readPushedImage(registry, image.repository, image.digest, LIMITS, undefined, other.text);
    expect(described.layers).toBe(1);
  });

  it('is refused when the repository no longer holds it, its config and layers still there', async () => {
    const image = await pushImage([randomBytes(1024)]);
    await registryDelete(registry, image.repository, `manifests/${image.digest}`);
    await expect(readPushedImage(registry, image.repository, image.digest, LIMITS, undefined, image.text)).rejects.toThrow(
      new BundleRefusal(`the registry has no manifests in ${image.repository}`),
    );
  });
});
