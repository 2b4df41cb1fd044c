import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { MemoryPodWatch } from '../../../test/support/kubernetes/memory-pod-watch.js';
import { ImageMissing, type BuildImage } from '../copy-engine.js';
import { KubernetesEngine } from './kubernetes-engine.js';

// What the Kubernetes engine answers without an API server: its image refs, what it can do, its
// guard, and copies' states from its pod cache. Its calls to the API run in kubernetes-engine.k8s.test.ts.

const engine = (watch = new MemoryPodWatch()) => {
  const kc = new KubeConfig();
  // Never called here: an address nothing listens on.
  kc.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'none' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
    currentContext: 'none',
  });
  return new KubernetesEngine({
    kc,
    namespace: 'copies',
    watch,
    registryHost: 'registry.example.com',
    reachers: { podLabels: { a: 'b' } },
  });
};
const build = (over: Partial<BuildImage> = {}): BuildImage => ({
  buildId: randomUUID(),
  tag: 'unused',
  recordedId: null,
  maxBytes: 1,
  bundle: async () => ({ body: Readable.from([]), size: 0 }),
  ...over,
});
const digest = `sha256:${'b'.repeat(64)}`;

describe('the Kubernetes engine, without a cluster', () => {
  it('runs pushed images by digest from the registry, and refuses a build that was never pushed', async () => {
    const e = engine();
    const ref = await e.prepare(build({ pushed: { repository: 'ws/project', digest } }));
    expect(ref).toBe(`registry.example.com/ws/project@${digest}`);
    expect(await e.prepare(build({ pushed: { repository: 'ws/project', digest } }))).toBe(ref);
    expect(await e.imageId(ref)).toBe(ref);
    expect(await e.imageId('localhost/build-x:latest')).toBeNull();
    await expect(e.prepare(build())).rejects.toBeInstanceOf(ImageMissing);
  });

  it('offers neither pause nor checkpoints, and has no calls for them', () => {
    const e = engine();
    expect(e.can).toEqual({ pause: false, checkpoint: false });
    expect('pause' in e || 'resume' in e || 'checkpoint' in e || 'restore' in e).toBe(false);
  });

  it('lets copies start: their NetworkPolicies are the guard', async () => {
    expect(await engine().guardHost()).toEqual({ installed: true, copies: true, refusal: null });
  });

  it("reads a copy's state from the pod cache, and null once the pod is gone", async () => {
    const watch = new MemoryPodWatch();
    const e = engine(watch);
    const name = `rc-${randomUUID()}`;
    watch.set({ metadata: { name, labels: { 'rooms.runner': 'r1' } }, status: { phase: 'Pending' } });
    expect(await e.state(name)).toMatchObject({ handle: name, status: 'created', address: null });
    watch.delete(name);
    expect(await e.state(name)).toBeNull();
  });
});
