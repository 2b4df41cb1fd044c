import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { signRegistryToken } from '../../services/core/infra/registry/registry-token.js';
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
