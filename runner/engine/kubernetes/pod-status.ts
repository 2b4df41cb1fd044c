import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { LABEL } from '@demo-rooms/contract/runner';
import type { CopyState, EngineRun } from '../copy-engine.js';
import { COPY_CONTAINER } from './copy-pod.js';

// A copy's state read from its pod as the cache last saw it: KubeSpawner's readiness, and the
// copy's end (its code, an OOM kill) from the container's terminated state.

const copyStatus = (pod: V1Pod): V1ContainerStatus | undefined => pod.status?.containerStatuses?.find((c) => c.name === COPY_CONTAINER);

/** How the copy ended, or null while it has not: the copy's container's end, else a failed seed. */
export function podEnd(pod: V1Pod): { exitCode: number | null; oomKilled: boolean; finishedAt: Date | null } | null {
  const own = copyStatus(pod)?.state?.terminated;
  const seed = pod.status?.initContainerStatuses?.find((c) => c.state?.terminated && c.state.terminated.exitCode !== 0)?.state?.terminated;
  const ended = own ?? seed;
  if (ended) return { exitCode: ended.exitCode, oomKilled: ended.reason === 'OOMKilled', finishedAt: ended.finishedAt ?? null };
  // Ended without a container's word: evicted, or its node lost.
  if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') return { exitCode: null, oomKilled: false, finishedAt: null };
  return null;
}

/**
 * KubeSpawner's `is_pod_running`: phase Running, an address, not being deleted, and every
 * container ready (a container without a readiness probe is ready once it runs).
 */
export function podRunning(pod: V1Pod): boolean {
  const s = pod.status;
  return (
    s?.phase === 'Running' &&
    Boolean(s.podIP) &&
    !pod.metadata?.deletionTimestamp &&
    (s.containerStatuses?.length ?? 0) > 0 &&
    s.containerStatuses!.every((c) => c.ready)
  );
}

/** Why the node cannot start the copy, when it says it never will without help (a bad image, a pull refused). */
export function podStuck(pod: V1Pod): string | null {
  const all = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const c of all) {
    const waiting = c.state?.waiting;
    if (
      waiting?.reason &&
      /^(ErrImagePull|ImagePullBackOff|InvalidImageName|CreateContainerConfigError|CreateContainerError)$/.test(waiting.reason)
    )
      return `${waiting.reason}: ${waiting.message ?? ''}`.trim();
  }
  return null;
}

export function podCopyStatus(pod: V1Pod): CopyState['status'] {
  if (podEnd(pod)) return 'exited';
  switch (pod.status?.phase) {
    case 'Pending':
    case undefined:
      return 'created';
    case 'Running':
      return 'running';
    default:
      return 'other';
  }
}

export function podState(pod: V1Pod): CopyState {
  const end = podEnd(pod);
  return {
    handle: pod.metadata?.name ?? '',
    status: podCopyStatus(pod),
    exitCode: end?.exitCode ?? null,
    oomKilled: end?.oomKilled ?? false,
    labels: pod.metadata?.labels ?? {},
    address: pod.status?.podIP || null,
  };
}

/** The copy id a pod of this runner carries, or undefined for any other pod. */
export function copyOf(pod: V1Pod, runnerId: string): string | undefined {
  const labels = pod.metadata?.labels ?? {};
  return labels[LABEL.runner] === runnerId ? labels[LABEL.copy] : undefined;
}

/**
 * The engine's record of the copy's run (issue 46): its container's status, `running.startedAt`
 * while it runs, `terminated.startedAt`/`finishedAt` once it ended. A pod that ended without its
 * container's word (evicted, its node lost) is finished at `endedAt` when the caller saw it end.
 */
export function podRun(pod: V1Pod, endedAt: Date | null = null): EngineRun {
  const state = copyStatus(pod)?.state;
  const started = state?.running?.startedAt ?? state?.terminated?.startedAt ?? null;
  const finished = state?.terminated?.finishedAt ?? (started && podEnd(pod) ? endedAt : null) ?? null;
  const labels = pod.metadata?.labels ?? {};
  return {
    copyId: labels[LABEL.copy] ?? '',
    handle: pod.metadata?.name ?? '',
    labels,
    startedAt: started ? new Date(started) : null,
    finishedAt: finished ? new Date(finished) : null,
  };
}

/**
 * The run of a pod the engine deleted, from the pod as last seen before it went (null: never
 * seen). The kubelet's `terminated.finishedAt` when it reported one; a pod deleted while it ran
 * finished when it was seen gone (`goneAt`): the API forgets a deleted pod, and with it its end.
 */
export function runAtDeletion(last: V1Pod | undefined, goneAt: Date): EngineRun | null {
  if (!last) return null;
  const run = podRun(last, goneAt);
  return run.startedAt && !run.finishedAt ? { ...run, finishedAt: goneAt } : run;
}
