import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../core/infra/config.js';
import { registryGet, registryOf } from '../../core/infra/registry/registry-pull.js';
import { signRegistryToken } from '../../core/infra/registry/registry-token.js';
import { flakyGateway } from '../../../test/support/flaky-gateway.js';
import { testEnv } from '../../../test/support/services.js';
import { sendImage } from './push-image.js';
import type { ReadImage } from './read-image.js';

// A blob's upload tried again when the registry answers 5xx (its store throttling or failing a
// moment), never endlessly: the real registry, behind a proxy on the loopback that answers 503 to
// the blob PUTs it is told to. And a first deploy's layers that another repository of the
// workspace holds: mounted from there, or a refusal when they are gone.

const registry = registryOf(loadConfig(testEnv()))!;
const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
let spool: string;
beforeAll(async () => {
  spool = await mkdtemp(join(tmpdir(), 'push-retry-'));
});
afterAll(() => rm(spool, { recursive: true, force: true }));

/** The registry behind the tests' flaky gateway, answering 503 to a blob's PUT while `fails(nth PUT)` says so; each PUT's digest noted. */
async function failingProxy(fails: (nth: number) => boolean) {
  const puts: string[] = [];
  const gateway = await flakyGateway(
    registry.url,
    (req) => {
      if (req.method !== 'PUT' || !req.url?.includes('/blobs/uploads/')) return 'pass';
      puts.push(new URL(req.url, 'http://x').searchParams.get('digest') ?? '');
      return fails(puts.length) ? 'unavailable' : 'pass';
    },
    { keepHost: true },
  );
  return { url: gateway.origin, puts, close: gateway.close };
}

/** A one-layer image (random bytes: the registry checks digests, not tar contents) and a token for a new repository. */
async function anImage() {
  const layer = randomBytes(4096);
  const file = join(spool, `${randomUUID()}.tar`);
  await writeFile(file, layer);
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [sha(layer)] } }));
  const image: ReadImage = {
    config,
    configDigest: sha(config),
    configSize: config.length,
    layers: [{ digest: sha(layer), size: layer.length, file }],
    scan: { layers: 0, baseLayers: 0, files: 0, findings: [] },
  };
  const repository = `${randomUUID()}/${randomUUID()}`;
  const token = signRegistryToken(registry.key, {
    subject: 'test',
    access: [{ type: 'repository', name: repository, actions: ['pull', 'push'] }],
    ttlSeconds: 300,
  }).token;
  return { image, repository, token };
}

it("sends a blob again after the registry's 503, and the image is whole in the repository", async () => {
  const { image, repository, token } = await anImage();
  const proxy = await failingProxy((nth) => nth === 1);
  try {
    const pushed = await sendImage({ registryUrl: proxy.url, repository, token }, image);
    // Two blobs, one of them twice.
    expect(proxy.puts).toHaveLength(3);
    expect(new Set(proxy.puts)).toEqual(new Set([image.configDigest, image.layers[0].digest]));
    expect((await registryGet(registry, repository, `manifests/${pushed.manifestDigest}`)).status).toBe(200);
  } finally {
    await proxy.close();
  }
});

it('gives up after three tries, naming the blob and the answer', async () => {
  const { image, repository, token } = await anImage();
  const proxy = await failingProxy(() => true);
  try {
    await expect(sendImage({ registryUrl: proxy.url, repository, token }, image)).rejects.toThrow(
      /^the upload of (layer|config) sha256:[0-9a-f]{64}: the registry answered 503$/,
    );
    const tries = proxy.puts.filter((digest) => digest === proxy.puts[0]);
    expect(tries).toHaveLength(3);
  } finally {
    await proxy.close();
  }
});

/** A token to push and pull `repository` and to pull `from`. */
const tokenFor = (repository: string, from: string[]) =>
  signRegistryToken(registry.key, {
    subject: 'test',
    access: [
      { type: 'repository', name: repository, actions: ['pull', 'push'] },
      ...from.map((name) => ({ type: 'repository' as const, name, actions: ['pull' as const] })),
    ],
    ttlSeconds: 300,
  }).token;

it("mounts a layer the engine did not read out from the workspace's repository that holds it, sending none of its bytes", async () => {
  const sibling = await anImage();
  await sendImage({ registryUrl: registry.url, repository: sibling.repository, token: sibling.token }, sibling.image);
  // Another project's deploy: its layer was found in the sibling as the image was read. The push's
  // own mount sources, asked again since, no longer name it (another project went live meanwhile,
  // and only the newest three are named): the layer is mounted from where it was found.
  const repository = `${sibling.repository.split('/')[0]}/${randomUUID()}`;
  const image: ReadImage = { ...sibling.image, layers: [{ ...sibling.image.layers[0], file: null, mountFrom: sibling.repository }] };
  const target = {
    registryUrl: registry.url,
    repository,
    token: tokenFor(repository, [sibling.repository]),
    mountFrom: [],
  };

  const pushed = await sendImage(target, image);
  expect(pushed.mounted).toEqual({ layers: 1, bytes: 4096 });
  expect(pushed.sent.layers).toBe(0);
  expect((await registryGet(registry, repository, `blobs/${image.layers[0].digest}`)).status).toBe(200);
  expect((await registryGet(registry, repository, `manifests/${pushed.manifestDigest}`)).status).toBe(200);
});

it('refuses, with nothing mounted, when no repository of the workspace holds that layer any more', async () => {
  const { image: read, repository } = await anImage();
  const gone = `${repository.split('/')[0]}/${randomUUID()}`; // holds nothing
  const image: ReadImage = { ...read, layers: [{ ...read.layers[0], file: null, mountFrom: gone }] };
  const target = { registryUrl: registry.url, repository, token: tokenFor(repository, [gone]), mountFrom: [gone] };

  await expect(sendImage(target, image)).rejects.toThrow(
    /^the layer sha256:[0-9a-f]{64} was in your workspace's other projects as the image was read, and is no longer$/,
  );
  await expect(registryGet(registry, repository, `blobs/${read.layers[0].digest}`)).rejects.toThrow(/^the registry has no sha256:/);
});
