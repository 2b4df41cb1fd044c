import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { MemoryPodWatch } from '../../../test/support/kubernetes/memory-pod-watch.js';
import { ImageMissing, type BuildImage } from '../copy-engine.js';
import { KubernetesEngine } from './kubernetes-engine.js';
import { podRun, runAtDeletion } from './pod-status.js';

// What the Kubernetes engine answers without an API server: its image refs, what it can do (and
// what it is not: a host engine), and copies' states and list from its pod cache. Its calls to the
// API run in kubernetes-engine.k8s.test.ts.

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
    await expect(e.prepare(build())).rejects.toBeInstanceOf(ImageMissing);
  });

  it('offers neither pause nor checkpoints, and has no calls for them', () => {
    const e = engine();
    expect(e.can).toEqual({ pause: false, checkpoint: false });
    expect('pause' in e || 'resume' in e || 'checkpoint' in e || 'restore' in e).toBe(false);
  });

  it("is no engine of the runner's host: no guard to install, no images to keep, no policy of its own to make", () => {
    const e = engine();
    for (const call of ['guardHost', 'imageId', 'listImages', 'removeImage']) expect(call in e, call).toBe(false);
    expect(Object.getOwnPropertyNames(KubernetesEngine.prototype).filter((m) => /polic/i.test(m))).toEqual([]);
  });

  it('lists only pods: a start leaves nothing of its own before its pod', async () => {
    const watch = new MemoryPodWatch();
    const e = engine(watch);
    const copyId = randomUUID();
    watch.set({ metadata: { name: `rc-${copyId}`, labels: { 'rooms.runner': 'r1', 'rooms.copy': copyId } }, status: { phase: 'Pending' } });
    watch.set({
      metadata: { name: `rc-${randomUUID()}`, labels: { 'rooms.runner': 'r2', 'rooms.copy': 'other' } },
      status: { phase: 'Pending' },
    });
    expect(await e.list('r1')).toEqual([
      { copyId, handle: `rc-${copyId}`, status: 'created', labels: { 'rooms.runner': 'r1', 'rooms.copy': copyId } },
    ]);
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

  it("reports each of its runner's copies' runs from the pods' container statuses (issue 46)", async () => {
    const watch = new MemoryPodWatch();
    const e = engine(watch);
    const pod = (name: string, runner: string, state: object) => ({
      metadata: { name, labels: { 'rooms.runner': runner, 'rooms.copy': name.slice(3) } },
      status: { phase: 'Running', containerStatuses: [{ name: 'copy', image: 'i', imageID: '', ready: true, restartCount: 0, state }] },
    });
    const [running, ended, pending, other] = ['a', 'b', 'c', 'd'].map((x) => `rc-${x}${randomUUID().slice(1)}`);
    watch.set(pod(running, 'r1', { running: { startedAt: new Date('2026-11-01T10:00:00Z') } }));
    watch.set(
      pod(ended, 'r1', {
        terminated: { exitCode: 0, startedAt: new Date('2026-11-01T10:00:00Z'), finishedAt: new Date('2026-11-01T10:05:00.500Z') },
      }),
    );
    watch.set(pod(pending, 'r1', { waiting: { reason: 'ContainerCreating' } }));
    watch.set(pod(other, 'r2', { running: { startedAt: new Date('2026-11-01T10:00:00Z') } }));
    const runs = new Map((await e.runs('r1')).map((r) => [r.handle, r]));
    expect([...runs.keys()].sort()).toEqual([running, ended, pending].sort());
    expect(runs.get(running)).toMatchObject({ copyId: running.slice(3), startedAt: new Date('2026-11-01T10:00:00Z'), finishedAt: null });
    expect(runs.get(ended)).toMatchObject({
      startedAt: new Date('2026-11-01T10:00:00Z'),
      finishedAt: new Date('2026-11-01T10:05:00.500Z'),
    });
    expect(runs.get(pending)).toMatchObject({ startedAt: null, finishedAt: null });
  });

  it("dates the end of a pod that ended without its container's word (evicted) when the caller saw it", () => {
    const seen = new Date('2026-11-01T11:00:00Z');
    const evicted = {
      metadata: { name: 'rc-x', labels: { 'rooms.copy': 'x' } },
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'copy',
            image: 'i',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { running: { startedAt: new Date('2026-11-01T10:00:00Z') } },
          },
        ],
      },
    };
    expect(podRun(evicted, seen)).toMatchObject({ copyId: 'x', startedAt: new Date('2026-11-01T10:00:00Z'), finishedAt: seen });
    expect(podRun(evicted)).toMatchObject({ finishedAt: null });
  });

  it("dates a deleted pod's end at the kubelet's finish, else when it was seen gone (a lost host's pods, issue 46)", () => {
    const goneAt = new Date('2026-11-01T11:00:00Z');
    const started = new Date('2026-11-01T10:00:00Z');
    const pod = (state: object) => ({
      metadata: { name: 'rc-y', labels: { 'rooms.copy': 'y' } },
      status: { phase: 'Running', containerStatuses: [{ name: 'copy', image: 'i', imageID: '', ready: true, restartCount: 0, state }] },
    });
    // Deleted while it ran: the API forgets it, so its end is when it was seen gone.
    expect(runAtDeletion(pod({ running: { startedAt: started } }), goneAt)).toMatchObject({
      copyId: 'y',
      startedAt: started,
      finishedAt: goneAt,
    });
    // Ended before it went: the kubelet's own finish.
    const finished = new Date('2026-11-01T10:30:00.250Z');
    expect(runAtDeletion(pod({ terminated: { exitCode: 137, startedAt: started, finishedAt: finished } }), goneAt)).toMatchObject({
      startedAt: started,
      finishedAt: finished,
    });
    // Never ran, or never seen: nothing to bill.
    expect(runAtDeletion(pod({ waiting: { reason: 'ContainerCreating' } }), goneAt)).toMatchObject({ startedAt: null, finishedAt: null });
    expect(runAtDeletion(undefined, goneAt)).toBeNull();
  });
});
