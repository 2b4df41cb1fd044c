import { setTimeout as sleep } from 'node:timers/promises';
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LABEL, STOP_TIMEOUT_S, type CopySpec } from '@demo-rooms/contract/runner';
import {
  EngineError,
  ExitedAtStart,
  ImageMissing,
  type BuildImage,
  type CopyEngine,
  type CopyExit,
  type CopyRef,
  type CopyState,
  type EngineRun,
  type Listed,
  type StartHooks,
} from '../copy-engine.js';
import { copyPod, COPY_CONTAINER, podName } from './copy-pod.js';
import { podExits } from './pod-exits.js';
import { copyOf, podCopyStatus, podEnd, podRun, podRunning, podState, podStuck, runAtDeletion } from './pod-status.js';
import type { PodWatch } from './pod-watch.js';
import { EXPIRES_ANNOTATION, pullSecret, pullSecretName, type PullCredential } from './pull-secret.js';

// The CopyEngine (../copy-engine.ts) over the Kubernetes API: a copy is a pod of its own
// (copy-pod.ts), its image pulled by digest from the platform's registry with its workspace's pull
// secret (pull-secret.ts). The pods' states come from one shared cache of the runner's pods
// (PodWatch, pod-reflector.ts), never from polling the API; exits too (pod-exits.ts). Nothing runs
// on the runner's host: no image to load or collect, no host to guard (it is no HostEngine,
// ../host-engine.ts), no pause. Copies' isolation is one label-selected NetworkPolicy the shipped
// manifests carry (infra/k8s/copies.yaml, `copies`), as JupyterHub's chart does for its user pods:
// the engine makes no policy of its own, so a start is a pod and a stop is its deletion.

export interface KubernetesEngineOptions {
  kc: KubeConfig;
  /** Where copies' pods and pull secrets live (and the copies' NetworkPolicy, infra/k8s/copies.yaml). */
  namespace: string;
  /** The runner's pods as last seen; started by the engine on first use. */
  watch: PodWatch;
  /** The platform's registry as the cluster's nodes reach it (`host[:port]`); null when the platform has none. */
  registryHost: string | null;
  /** A pull credential for a workspace's repositories; absent when nodes pull without one (a test registry). */
  pullCredential?: (workspaceId: string) => PullCredential;
}

const CREATE_RETRIES = 3;
/** How long a stop waits for the pod to be gone from the cache after its grace period, ms. */
const STOP_WAIT_MS = (STOP_TIMEOUT_S + 60) * 1000;
/** How often another runner's pod, outside this runner's cache, is read while it goes, ms. */
const FOREIGN_POLL_MS = 500;

const status = (err: unknown) => (err instanceof ApiException ? err.code : undefined);
const gone = (err: unknown) => status(err) === 404;

export class KubernetesEngine implements CopyEngine {
  /**
   * No pause: the API cannot freeze a pod in place (no cgroup freezer call; scaling to nothing is
   * a stop). The idle culler (runner/loops/idle.ts) skips its first tier on this engine and stops
   * an idle copy where Docker would pause it. No checkpoints either.
   */
  readonly can = { pause: false, checkpoint: false };
  private readonly core: CoreV1Api;
  private readonly ns: string;
  private started: Promise<void> | null = null;
  /** When each workspace's pull secret this process wrote expires (ms since the epoch). */
  private readonly secrets = new Map<string, number>();

  constructor(private readonly o: KubernetesEngineOptions) {
    this.core = o.kc.makeApiClient(CoreV1Api);
    this.ns = o.namespace;
  }

  /** The pod cache, listed once (a restarted runner's first list is its adoption). */
  private ready(): Promise<void> {
    this.started ??= this.o.watch.start().catch((err: unknown) => {
      this.started = null;
      throw err;
    });
    return this.started;
  }

  async ping(): Promise<void> {
    await this.core.getAPIResources();
  }

  /** Nothing to load: a node pulls the pushed image by its digest. A build never pushed cannot run here. */
  async prepare(build: BuildImage): Promise<string> {
    if (!build.pushed) throw new ImageMissing(`build ${build.buildId} has no image in the registry: this engine runs pushed images only`);
    if (!this.o.registryHost)
      throw new ImageMissing(`build ${build.buildId} was pushed to a registry this runner is not given (REGISTRY_URL)`);
    return `${this.o.registryHost}/${build.pushed.repository}@${build.pushed.digest}`;
  }

  /**
   * The pod behind its gate (recorded through `made`), the gate lifted, then the pod
   * running as KubeSpawner waits for it, from the cache. What was made stays for the caller's stop.
   * A pod that never runs (no node has room, an image still pulling) is waited for until the
   * signal ends the start: the runner's start deadline (RUNNER_START_DEADLINE_S) is this engine's
   * start_timeout too.
   */
  async start(spec: CopySpec, o: StartHooks): Promise<{ handle: string; address: string }> {
    await this.ready();
    o.signal.throwIfAborted();
    const pullSecret = await this.ensurePullSecret(spec.workspaceId);
    o.phase('pull secret');
    o.signal.throwIfAborted();
    const handle = podName(spec.copyId);
    await this.create(
      'pod',
      () =>
        this.core.createNamespacedPod({ namespace: this.ns, body: copyPod(spec, { namespace: this.ns, image: spec.image, pullSecret }) }),
      o.signal,
    );
    // In the cache before it is recorded: from here on, state and list know the copy.
    await this.o.watch.waitFor(handle, (p) => p !== undefined, o.signal);
    o.phase('create');
    await o.made(handle);
    o.signal.throwIfAborted();
    await this.core.patchNamespacedPod(
      { name: handle, namespace: this.ns, body: [{ op: 'replace', path: '/spec/schedulingGates', value: [] }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    let seen = false;
    const pod = await this.o.watch.waitFor(
      handle,
      (p) => {
        if (p) seen = true;
        return p ? podRunning(p) || podEnd(p) !== null || podStuck(p) !== null : seen;
      },
      o.signal,
    );
    o.signal.throwIfAborted();
    if (!pod) throw new ExitedAtStart(null, false);
    const end = podEnd(pod);
    if (end) throw new ExitedAtStart(end.exitCode, end.oomKilled);
    const stuck = podStuck(pod);
    if (stuck) throw new EngineError(`the copy's pod cannot start: ${stuck}`);
    // The watch stopped (the runner is closing): the pod as last seen, not yet running.
    if (!podRunning(pod)) throw new EngineError('the pod watch ended while the copy was starting');
    await o.running(podRun(pod).startedAt ?? undefined);
    o.phase('running');
    return { handle, address: pod.status!.podIP! };
  }

  /**
   * A create, retried on the API's passing refusals (429, 5xx); a 409 means an earlier try made it.
   * The start's signal (its deadline, a withdrawal) ends the back-off and stops further tries; a
   * call already sent is not cut, and what it makes is the caller's stop to remove.
   */
  private async create(what: string, call: () => Promise<unknown>, signal: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      try {
        await call();
        return;
      } catch (err) {
        const code = status(err);
        if (code === 409) return;
        if (attempt < CREATE_RETRIES && (code === 429 || (code !== undefined && code >= 500))) {
          await sleep(200 * 2 ** attempt, undefined, { signal });
          continue;
        }
        throw new EngineError(`create ${what}: ${(err as Error).message}`, code);
      }
    }
  }

  /** The workspace's pull secret, written again once half its credential's life is gone; its name, or null without credentials. */
  private async ensurePullSecret(workspaceId: string): Promise<string | null> {
    if (!this.o.pullCredential || !this.o.registryHost) return null;
    const name = pullSecretName(workspaceId);
    const expires = this.secrets.get(workspaceId) ?? (await this.secretExpiry(name));
    const credential = this.o.pullCredential(workspaceId);
    if (expires !== null && expires - Date.now() > (credential.expiresAt.getTime() - Date.now()) / 2) return name;
    const body = pullSecret(workspaceId, this.ns, this.o.registryHost, credential);
    try {
      await this.core.createNamespacedSecret({ namespace: this.ns, body });
    } catch (err) {
      if (status(err) !== 409) throw new EngineError(`create pull secret: ${(err as Error).message}`, status(err));
      await this.core.replaceNamespacedSecret({ name, namespace: this.ns, body });
    }
    this.secrets.set(workspaceId, credential.expiresAt.getTime());
    return name;
  }

  private async secretExpiry(name: string): Promise<number | null> {
    try {
      const secret = await this.core.readNamespacedSecret({ name, namespace: this.ns });
      const at = Date.parse(secret.metadata?.annotations?.[EXPIRES_ANNOTATION] ?? '');
      return Number.isNaN(at) ? null : at;
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
  }

  /**
   * The pod, deleted; resolves once the cache has no pod, with the pod's run as last seen before it went: the kubelet's terminated.finishedAt when
   * it reported one, else the moment the cache saw the pod gone (a deleted pod is forgotten).
   */
  async stop(copy: CopyRef): Promise<EngineRun | null> {
    await this.ready();
    const name = copy.handle ?? podName(copy.copyId);
    let last = this.o.watch.get(name);
    await this.core.deleteNamespacedPod({ name, namespace: this.ns, gracePeriodSeconds: STOP_TIMEOUT_S }).catch((err: Error) => {
      if (!gone(err)) throw new EngineError(`not removed: pod: ${err.message}`, status(err));
    });
    await this.o.watch
      .waitFor(
        name,
        (p) => {
          if (p) last = p;
          return p === undefined;
        },
        AbortSignal.timeout(STOP_WAIT_MS),
      )
      .catch(() => {
        throw new EngineError(`the pod ${name} was not gone within ${STOP_WAIT_MS / 1000} s`);
      });
    // Deleted while running: its end is the deletion, which the cache saw just now.
    return runAtDeletion(last, new Date());
  }

  /**
   * Another runner's pods (a lost host's: they run on in the cluster after their runner went),
   * read from the API, not this runner's cache: each deleted, and watched by polling until it is
   * gone, its run as last seen (`runAtDeletion`). One not gone within the stop's wait (its node
   * lost too) finishes at that moment: billing stops when the deletion was asked for and waited.
   */
  async endRunsOf(runnerId: string): Promise<EngineRun[]> {
    const pods = (await this.core.listNamespacedPod({ namespace: this.ns, labelSelector: runnerPodSelector(runnerId) })).items;
    const ended = await Promise.allSettled(pods.map((pod) => this.deleteAndWatch(pod)));
    return ended.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  }

  private async deleteAndWatch(pod: V1Pod): Promise<EngineRun | null> {
    const name = pod.metadata!.name!;
    let last: V1Pod | undefined = pod;
    await this.core.deleteNamespacedPod({ name, namespace: this.ns, gracePeriodSeconds: STOP_TIMEOUT_S }).catch((err: Error) => {
      if (!gone(err)) throw new EngineError(`not removed: pod: ${err.message}`, status(err));
    });
    for (const until = Date.now() + STOP_WAIT_MS; Date.now() < until; await sleep(FOREIGN_POLL_MS)) {
      const now = await this.core.readNamespacedPod({ name, namespace: this.ns }).catch((err: unknown) => {
        if (gone(err)) return undefined;
        throw err;
      });
      if (!now) break;
      last = now;
    }
    return runAtDeletion(last, new Date());
  }

  /** Each pod of this runner's copies, as its container status records the run. */
  async runs(runnerId: string): Promise<EngineRun[]> {
    await this.ready();
    return this.o.watch
      .list()
      .filter((pod) => copyOf(pod, runnerId))
      .map((pod) => podRun(pod));
  }

  async state(handle: string): Promise<CopyState | null> {
    await this.ready();
    const pod = this.o.watch.get(handle);
    return pod ? podState(pod) : null;
  }

  /**
   * The pods of this runner, from the cache. A start leaves nothing of its own before its pod (the
   * pull secret is the workspace's, kept for its next copies), so there are no leftovers to list.
   */
  async list(runnerId: string): Promise<Listed[]> {
    await this.ready();
    return this.o.watch.list().flatMap((pod) => {
      const copyId = copyOf(pod, runnerId);
      return copyId ? [{ copyId, handle: pod.metadata!.name!, status: podCopyStatus(pod), labels: pod.metadata?.labels ?? {} }] : [];
    });
  }

  async exits(runnerId: string, opts?: { since?: number; signal?: AbortSignal }): Promise<AsyncIterable<CopyExit>> {
    await this.ready();
    return podExits(this.o.watch, runnerId, opts);
  }

  /** Ends the pod watch; copies go on running, for the next runner to adopt. */
  async close(): Promise<void> {
    await this.o.watch.stop();
  }

  async logTail(handle: string, lines: number): Promise<string> {
    try {
      return await this.core.readNamespacedPodLog({ name: handle, namespace: this.ns, container: COPY_CONTAINER, tailLines: lines });
    } catch (err) {
      // 400: the container has not started (a pod still behind its gate, or pulling).
      if (gone(err) || status(err) === 400) return '';
      throw err;
    }
  }
}

/** The pods of a runner, as the PodWatch is asked to keep them. */
export const runnerPodSelector = (runnerId: string) => `${LABEL.runner}=${runnerId},${LABEL.copy}`;
