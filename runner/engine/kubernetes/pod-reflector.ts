import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, ListWatch, type V1Pod, type V1PodList, Watch } from '@kubernetes/client-node';
import type { Logger } from '../../../services/core/infra/log.js';
import { OneWatch, type WatchLike } from './one-watch.js';
import type { PodChange, PodWatch } from './pod-watch.js';
import { describeKubeError, raceAbort } from './watch-util.js';

export interface PodReflectorOptions {
  /** Where the API server is; loaded from the default places (in-cluster, KUBECONFIG) when neither this nor `watch`+`list` is given. */
  kc?: KubeConfig;
  namespace: string;
  /** The runner's pods only, e.g. `app.kubernetes.io/managed-by=demo-rooms-runner`. */
  labelSelector: string;
  log: Logger;
  /** Each watch request is ended and reopened from its resourceVersion after this long (ms). */
  restartMs?: number;
  /** After a failed watch or list: wait `firstMs`, doubling to `maxMs`, before trying again (ms). */
  backoff?: { firstMs: number; maxMs: number };
  /** Tests: a scripted stand-in for client-node's `Watch`. */
  watch?: WatchLike;
  /** Tests: a scripted stand-in for listing the namespace's pods with the selector. */
  list?: () => Promise<V1PodList>;
}

// As KubeSpawner's request timeout for its API calls.
const LIST_TIMEOUT_MS = 60_000;

type Listener = (change: PodChange, pod: V1Pod) => void;
interface Waiter {
  name: string;
  /** Checks the pod as now cached; settles the wait when it holds. */
  check(): void;
  /** Settles with the pod as last seen (stop). */
  settle(): void;
}

/**
 * The one shared cache of the runner's pods: client-node's own `ListWatch` (its informer), with the
 * rules KubeSpawner's reflector keeps. ListWatch lists, watches from the list's resourceVersion, and
 * on its own relists after a 410 Gone (only then) and resumes from the last resourceVersion after a
 * timeout or a clean end. What it does not do, this adds:
 * - after any other error (a reset connection, a failed list) it only emits `error` and stays down:
 *   here it is started again after a backoff (100 ms doubling to 30 s), keeping its resourceVersion
 *   (a failed relist keeps none, so it lists again) and its cache, which goes on serving meanwhile;
 * - each watch request is ended after `restartMs` and reopened (`OneWatch`, which also guards
 *   against the informer's known faults);
 * - stop() at any point ends it with no timer, request or callback left behind.
 */
export class PodReflector implements PodWatch {
  private readonly informer: ListWatch<V1Pod>;
  private readonly oneWatch: OneWatch;
  private readonly listPods: () => Promise<V1PodList>;
  private readonly log: Logger;
  private readonly namespace: string;
  private readonly backoff: { firstMs: number; maxMs: number };
  private nextDelayMs: number;
  private readonly stopping = new AbortController();
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Set<Waiter>();
  private readonly inflight = new Set<Promise<unknown>>();
  private retryTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private listed = false;
  private firstList: { resolve(): void; reject(err: Error): void } | undefined;

  constructor(opts: PodReflectorOptions) {
    this.namespace = opts.namespace;
    this.log = opts.log.child({ component: 'pod-reflector', namespace: opts.namespace });
    this.backoff = opts.backoff ?? { firstMs: 100, maxMs: 30_000 };
    this.nextDelayMs = this.backoff.firstMs;

    const kc = opts.kc ?? defaultKubeConfig(opts);
    const core = opts.list ? undefined : kc.makeApiClient(CoreV1Api);
    // A plain list reads from etcd, so a relist is never older than what the cache already holds.
    this.listPods = opts.list ?? (() => core!.listNamespacedPod({ namespace: opts.namespace, labelSelector: opts.labelSelector }));

    this.oneWatch = new OneWatch(kc, opts.watch ?? new Watch(kc), {
      restartMs: opts.restartMs ?? 30_000,
      stopped: this.stopping.signal,
      log: this.log,
      onOpen: () => this.firstList?.resolve(),
      onWorking: () => this.resetBackoff(),
      track: (work) => this.track(work),
    });
    const path = `/api/v1/namespaces/${encodeURIComponent(opts.namespace)}/pods`;
    this.informer = new ListWatch<V1Pod>(path, this.oneWatch, () => this.listOnce(), false, opts.labelSelector, undefined, {
      // ListWatch waits between quiet reconnects (1 s doubling to 30 s); stop() cuts the wait short.
      delayFn: (ms) => sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined),
    });
    this.informer.on('add', (pod) => this.changed('ADDED', pod));
    this.informer.on('update', (pod) => this.changed('MODIFIED', pod));
    this.informer.on('delete', (pod) => this.changed('DELETED', pod));
    this.informer.on('error', (err) => this.failed(err));
    this.informer.on('connect', () => {
      if (!this.stopping.signal.aborted) this.log.debug({ resourceVersion: this.informer.latestResourceVersion() }, 'pod watch connecting');
    });
  }

  start(): Promise<void> {
    if (this.started) return this.started;
    if (this.stopping.signal.aborted) return Promise.reject(new Error('the pod reflector was stopped'));
    this.started = new Promise<void>((resolve, reject) => {
      this.firstList = { resolve, reject };
    });
    this.track(this.informer.start());
    return this.started;
  }

  async stop(): Promise<void> {
    if (!this.stopping.signal.aborted) {
      this.stopping.abort();
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.oneWatch.close();
      await this.informer.stop();
      this.firstList?.reject(new Error('the pod reflector was stopped before its first list'));
      for (const waiter of [...this.waiters]) waiter.settle();
      this.log.debug('pod reflector stopped');
    }
    // Every loop of ListWatch's ends promptly once stopped: lists and connects race the stop signal.
    await Promise.allSettled([...this.inflight]);
  }

  get(name: string): V1Pod | undefined {
    return this.informer.get(name, this.namespace);
  }

  list(): V1Pod[] {
    return [...this.informer.list(this.namespace)];
  }

  onChange(listener: Listener): () => void {
    // A wrapper per subscription, so subscribing the same function twice unsubscribes each on its own.
    const own: Listener = (change, pod) => listener(change, pod);
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  waitFor(name: string, until: (pod: V1Pod | undefined) => boolean, signal?: AbortSignal): Promise<V1Pod | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<V1Pod | undefined>((resolve, reject) => {
      const finish = (settle: () => void) => {
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      const onAbort = () => finish(() => reject(signal?.reason));
      const waiter: Waiter = {
        name,
        check: () => {
          const pod = this.get(name);
          try {
            if (until(pod)) finish(() => resolve(pod));
          } catch (err) {
            finish(() => reject(err));
          }
        },
        settle: () => finish(() => resolve(this.get(name))),
      };
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiter.check();
      if (this.stopping.signal.aborted && this.waiters.has(waiter)) waiter.settle();
    });
  }

  private async listOnce(): Promise<V1PodList> {
    // A list has no timeout of its own, and one that never answers would stop the informer for good
    // with no error; past the deadline it counts as failed (and is tried again after the backoff).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), LIST_TIMEOUT_MS);
    const list = await raceAbort(this.listPods(), AbortSignal.any([this.stopping.signal, deadline.signal])).finally(() =>
      clearTimeout(timer),
    );
    // A list that lands after stop must not reach the cache: ListWatch applies whatever resolves.
    if (this.stopping.signal.aborted) throw new Error('the pod reflector was stopped during a list');
    if (!list) throw new Error(`listing pods took over ${LIST_TIMEOUT_MS / 1000} s`);
    this.resetBackoff();
    this.log.debug(
      { pods: list.items.length, resourceVersion: list.metadata?.resourceVersion },
      this.listed ? 'pods relisted' : 'pods listed',
    );
    this.listed = true;
    return list;
  }

  // ListWatch calls these with its cache already changed, so `get` inside a listener sees the change.
  private changed(change: PodChange, pod: V1Pod): void {
    if (this.stopping.signal.aborted) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(change, pod);
      } catch (err) {
        // A listener's throw would unwind into ListWatch's loop and end it.
        this.log.warn({ error: describeKubeError(err), pod: pod.metadata?.name }, 'pod change listener failed');
      }
    }
    const name = pod.metadata?.name;
    for (const waiter of [...this.waiters]) if (waiter.name === name) waiter.check();
  }

  // ListWatch emits `error` and stays down after a failed list or a watch error other than a 410.
  private failed(err: unknown): void {
    if (this.stopping.signal.aborted || this.retryTimer) return;
    const delayMs = this.nextDelayMs;
    this.nextDelayMs = Math.min(delayMs * 2, this.backoff.maxMs);
    this.log.warn({ error: describeKubeError(err), retryInMs: delayMs }, 'pod watch failed; starting it again');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopping.signal.aborted) this.track(this.informer.start());
    }, delayMs);
  }

  private resetBackoff(): void {
    this.nextDelayMs = this.backoff.firstMs;
  }

  private track(work: Promise<unknown>): void {
    const tracked = work
      .catch((err) => {
        // Not expected (every step that can fail reports through `error`); if it comes, start again.
        if (!this.stopping.signal.aborted) this.failed(err);
      })
      .finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }
}

function defaultKubeConfig(opts: PodReflectorOptions): KubeConfig {
  const kc = new KubeConfig();
  if (!opts.watch || !opts.list) kc.loadFromDefault();
  return kc;
}
