import type { V1Pod } from '@kubernetes/client-node';
import type { PodChange, PodWatch } from '../../../runner/engine/kubernetes/pod-watch.js';

// A PodWatch whose pods a test sets by hand: what the engine's readers (status, exits) see from a
// cache, without an API server. The real cache is pod-reflector.ts, tested with client-node's ListWatch.

export class MemoryPodWatch implements PodWatch {
  private readonly pods = new Map<string, V1Pod>();
  private readonly listeners = new Set<(change: PodChange, pod: V1Pod) => void>();

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  get(name: string) {
    return this.pods.get(name);
  }
  list() {
    return [...this.pods.values()];
  }
  onChange(listener: (change: PodChange, pod: V1Pod) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  waitFor(name: string, until: (pod: V1Pod | undefined) => boolean, signal?: AbortSignal): Promise<V1Pod | undefined> {
    return new Promise((resolve, reject) => {
      if (until(this.pods.get(name))) return resolve(this.pods.get(name));
      const off = this.onChange((_, pod) => {
        if (pod.metadata?.name === name && until(this.pods.get(name))) {
          off();
          resolve(this.pods.get(name));
        }
      });
      signal?.addEventListener('abort', () => (off(), reject(signal.reason)), { once: true });
    });
  }

  /** The pod as the watch would deliver it (ADDED or MODIFIED), or its deletion. */
  set(pod: V1Pod): void {
    const name = pod.metadata!.name!;
    const change = this.pods.has(name) ? 'MODIFIED' : 'ADDED';
    this.pods.set(name, pod);
    for (const l of this.listeners) l(change, pod);
  }
  delete(name: string): void {
    const pod = this.pods.get(name);
    if (!pod) return;
    this.pods.delete(name);
    for (const l of this.listeners) l('DELETED', pod);
  }
  /** Every pod delivered again, as after a relist. */
  relist(): void {
    for (const pod of this.pods.values()) for (const l of this.listeners) l('MODIFIED', pod);
  }
}
