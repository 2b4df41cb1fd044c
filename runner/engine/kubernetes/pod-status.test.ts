import { randomUUID } from 'node:crypto';
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { MemoryPodWatch } from '../../../test/support/kubernetes/memory-pod-watch.js';
import type { CopyExit } from '../copy-engine.js';
import { podExits } from './pod-exits.js';
import { podCopyStatus, podEnd, podRunning, podState, podStuck } from './pod-status.js';

// A copy's state, readiness and end as read from its pod, in the shapes the kubelet reports them.

const RUNNER = 'runner-a1';
const pod = (status: V1Pod['status'], over: { name?: string; runner?: string; deleting?: boolean } = {}): V1Pod => {
  const copyId = randomUUID();
  return {
    metadata: {
      name: over.name ?? `rc-${copyId}`,
      uid: randomUUID(),
      labels: { 'rooms.copy': copyId, 'rooms.runner': over.runner ?? RUNNER },
      ...(over.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status,
  };
};
const copy = (state: V1ContainerStatus['state'], ready = false): V1ContainerStatus => ({
  name: 'copy',
  image: 'x',
  imageID: 'x',
  restartCount: 0,
  ready,
  state,
});
const running = () => pod({ phase: 'Running', podIP: '10.244.1.7', containerStatuses: [copy({ running: {} }, true)] });

describe('a copy read from its pod', () => {
  it('is running as KubeSpawner means it: phase Running, an address, not deleting, every container ready', () => {
    expect(podRunning(running())).toBe(true);
    expect(podState(running())).toMatchObject({ status: 'running', address: '10.244.1.7', exitCode: null, oomKilled: false });
    expect(podRunning(pod({ phase: 'Running', containerStatuses: [copy({ running: {} }, true)] }))).toBe(false); // no address yet
    expect(podRunning(pod({ phase: 'Running', podIP: '10.244.1.7', containerStatuses: [copy({ running: {} }, false)] }))).toBe(false);
    expect(podRunning(pod({ phase: 'Running', podIP: '10.244.1.7', containerStatuses: [] }))).toBe(false);
    expect(podRunning(pod(running().status, { deleting: true }))).toBe(false);
    expect(podRunning(pod({ phase: 'Pending' }))).toBe(false);
  });

  it('is created while pending (behind its gate, scheduled, pulling, seeding /app)', () => {
    expect(podCopyStatus(pod(undefined))).toBe('created');
    expect(
      podCopyStatus(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] })),
    ).toBe('created');
    expect(podState(pod({ phase: 'Pending' })).address).toBeNull();
  });

  it('has exited with its code, as soon as its container ended, even before the phase says so', () => {
    const ended = pod({
      phase: 'Failed',
      podIP: '10.244.1.7',
      containerStatuses: [copy({ terminated: { exitCode: 3, reason: 'Error' } })],
    });
    expect(podState(ended)).toMatchObject({ status: 'exited', exitCode: 3, oomKilled: false });
    const lagging = pod({
      phase: 'Running',
      podIP: '10.244.1.7',
      containerStatuses: [copy({ terminated: { exitCode: 0, reason: 'Completed' } })],
    });
    expect(podState(lagging)).toMatchObject({ status: 'exited', exitCode: 0 });
  });

  it('was OOM killed when the kubelet says OOMKilled', () => {
    const killed = pod({ phase: 'Failed', containerStatuses: [copy({ terminated: { exitCode: 137, reason: 'OOMKilled' } })] });
    expect(podEnd(killed)).toMatchObject({ exitCode: 137, oomKilled: true });
  });

  it('ended when its /app seed failed, with the seed code', () => {
    const seedFailed = pod({
      phase: 'Failed',
      initContainerStatuses: [
        { name: 'seed-app', image: 'x', imageID: 'x', restartCount: 0, ready: false, state: { terminated: { exitCode: 127 } } },
      ],
      containerStatuses: [copy({ waiting: { reason: 'PodInitializing' } })],
    });
    expect(podState(seedFailed)).toMatchObject({ status: 'exited', exitCode: 127 });
  });

  it('ended with no code when the pod failed without a container saying so (an eviction)', () => {
    expect(podEnd(pod({ phase: 'Failed', reason: 'Evicted' }))).toEqual({ exitCode: null, oomKilled: false, finishedAt: null });
  });

  it('is stuck when its node cannot pull the image', () => {
    const stuck = pod({
      phase: 'Pending',
      containerStatuses: [copy({ waiting: { reason: 'ImagePullBackOff', message: 'unauthorized' } })],
    });
    expect(podStuck(stuck)).toBe('ImagePullBackOff: unauthorized');
    expect(podStuck(pod({ phase: 'Pending', containerStatuses: [copy({ waiting: { reason: 'ContainerCreating' } })] }))).toBeNull();
  });
});

describe("a runner's copies' exits, from the pod cache", () => {
  const collect = (stream: AsyncIterable<CopyExit>, into: CopyExit[]) =>
    void (async () => {
      for await (const e of stream) into.push(e);
    })();
  const settle = () => new Promise((r) => setImmediate(r));

  it('tells each end once, however often a relist delivers it, and only of its own pods', async () => {
    const watch = new MemoryPodWatch();
    const ac = new AbortController();
    const seen: CopyExit[] = [];
    collect(podExits(watch, RUNNER, { signal: ac.signal }), seen);
    const p = running();
    watch.set(p);
    const finishedAt = new Date('2026-11-27T10:00:00Z');
    watch.set({
      ...p,
      status: { phase: 'Failed', containerStatuses: [copy({ terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt } })] },
    });
    watch.relist();
    watch.set(pod({ phase: 'Failed', containerStatuses: [copy({ terminated: { exitCode: 1 } })] }, { runner: 'another' }));
    await settle();
    expect(seen).toEqual([
      { copyId: p.metadata!.labels!['rooms.copy'], handle: p.metadata!.name, exitCode: 137, oom: true, at: finishedAt.getTime() / 1000 },
    ]);
    ac.abort();
  });

  it('tells of a pod deleted before it ended (not by the runner, or by its stop), with no code', async () => {
    const watch = new MemoryPodWatch();
    const ac = new AbortController();
    const seen: CopyExit[] = [];
    const p = running();
    watch.set(p);
    collect(podExits(watch, RUNNER, { signal: ac.signal }), seen);
    watch.delete(p.metadata!.name!);
    await settle();
    expect(seen).toMatchObject([{ handle: p.metadata!.name, exitCode: null, oom: false }]);
    ac.abort();
  });

  it('leaves ends from before it opened to the reconcile, unless asked from a time on', async () => {
    const watch = new MemoryPodWatch();
    const early = pod({ phase: 'Failed', containerStatuses: [copy({ terminated: { exitCode: 2, finishedAt: new Date(1_000_000_000) } })] });
    const late = pod({ phase: 'Failed', containerStatuses: [copy({ terminated: { exitCode: 4, finishedAt: new Date(2_000_000_000) } })] });
    watch.set(early);
    watch.set(late);
    const ac = new AbortController();
    const fresh: CopyExit[] = [];
    const resumed: CopyExit[] = [];
    collect(podExits(watch, RUNNER, { signal: ac.signal }), fresh);
    collect(podExits(watch, RUNNER, { signal: ac.signal, since: 1_500_000 }), resumed);
    watch.relist();
    await settle();
    expect(fresh).toEqual([]);
    expect(resumed.map((e) => e.exitCode)).toEqual([4]);
    ac.abort();
  });

  it('ends when its signal aborts', async () => {
    const ac = new AbortController();
    const stream = podExits(new MemoryPodWatch(), RUNNER, { signal: ac.signal });
    const done = (async () => {
      for await (const _ of stream);
      return 'ended';
    })();
    ac.abort();
    expect(await done).toBe('ended');
  });
});
