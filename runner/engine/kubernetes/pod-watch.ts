import type { V1Pod } from '@kubernetes/client-node';

// What the Kubernetes engine reads its pods from: one shared cache of the runner's pods, kept by a
// list then a watch (pod-reflector.ts), as KubeSpawner's reflector and client-node's informer keep
// theirs. The engine never asks the API server for one pod's state in a loop: it reads here and
// waits here. A reconnect or relist may deliver a pod again, so listeners must be idempotent.

export type PodChange = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface PodWatch {
  /** Lists, then watches; resolves once the first list is in the cache. */
  start(): Promise<void>;
  /** Ends the watch and every pending `waitFor` (they resolve with the pod as last seen). */
  stop(): Promise<void>;
  /** The pod of that name as last seen, or undefined when the cache has none. */
  get(name: string): V1Pod | undefined;
  /** Every pod in the cache. */
  list(): V1Pod[];
  /** Called on each change the watch sees (a pod may come again after a relist); returns the unsubscribe. */
  onChange(listener: (change: PodChange, pod: V1Pod) => void): () => void;
  /**
   * Resolves with the pod once `until(pod)` holds for the pod of that name (checked at once and on
   * every change; `pod` is undefined once it is gone), or rejects when `signal` aborts.
   */
  waitFor(name: string, until: (pod: V1Pod | undefined) => boolean, signal?: AbortSignal): Promise<V1Pod | undefined>;
}
