import type { V1Pod, V1PodList, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../services/core/infra/log.js';
import type { WatchLike } from './one-watch.js';
import { PodReflector } from './pod-reflector.js';
import type { PodChange } from './pod-watch.js';

// No API server can run on these machines, so the reflector runs client-node's real ListWatch with a
// scripted Watch under it (the way trigger.dev tests its pod handler): each connect follows a script
// (open, reset, 410 Gone, hang) and the test plays the API server's events on the open one.

const NAMESPACE = 'copies';
const SELECTOR = 'app.kubernetes.io/managed-by=runner';
const PATH = `/api/v1/namespaces/${NAMESPACE}/pods`;

type WatchArgs = Parameters<Watch['watch']>;
type Step = 'open' | 'reset' | 'gone' | 'hang';

interface OpenWatch {
  emit(type: string, object: unknown): void;
  /** The connection ends: cleanly (no error) or with one. */
  end(err?: unknown): void;
  handle: AbortController;
}

function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

// Behaves as client-node's Watch does: `done` at most once, an abort answered by `done(AbortError)`,
// a refused connect reported through `done` before `watch()` resolves.
class ScriptedWatch implements WatchLike {
  readonly calls: Array<Record<string, unknown>> = [];
  readonly steps: Step[] = [];
  readonly opened: OpenWatch[] = [];
  private releaseHang: (() => void) | undefined;

  get open(): OpenWatch {
    const last = this.opened.at(-1);
    if (!last) throw new Error('no watch is open');
    return last;
  }

  releaseConnect(): void {
    this.releaseHang?.();
  }

  async watch(path: WatchArgs[0], query: WatchArgs[1], callback: WatchArgs[2], done: WatchArgs[3]): Promise<AbortController> {
    this.calls.push({ path, ...query });
    const step = this.steps.shift() ?? 'open';
    const handle = new AbortController();
    let ended = false;
    const end = (err: unknown = null) => {
      if (ended) return;
      ended = true;
      done(err);
    };
    handle.signal.addEventListener('abort', () => end(new DOMException('This operation was aborted', 'AbortError')));
    if (step === 'reset') end(connectionReset());
    if (step === 'gone') end(Object.assign(new Error('Gone'), { statusCode: 410 }));
    if (step === 'hang') await new Promise<void>((resolve) => (this.releaseHang = resolve));
    if (step === 'open' || step === 'hang')
      this.opened.push({ emit: (type, object) => callback(type, object, { type, object }), end, handle });
    return handle;
  }
}

class ScriptedList {
  calls = 0;
  readonly results: Array<V1PodList | Error | Promise<V1PodList>> = [];

  readonly fn = async (): Promise<V1PodList> => {
    this.calls += 1;
    const next = this.results.shift();
    if (!next) throw new Error('no list scripted');
    if (next instanceof Error) throw next;
    return next;
  };
}

function pod(name: string, resourceVersion: string, phase = 'Pending'): V1Pod {
  return { metadata: { name, namespace: NAMESPACE, resourceVersion }, status: { phase } };
}

function podList(resourceVersion: string, ...items: V1Pod[]): V1PodList {
  return { metadata: { resourceVersion }, items };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const names = (pods: V1Pod[]) => pods.map((p) => `${p.metadata?.name}@${p.metadata?.resourceVersion}`).sort();

// Polls until the assertion holds: the reflector's steps run on promises and millisecond backoffs, and
// a busy machine may take a while to run them. (Under fake timers each poll also moves the clock 50 ms.)
const eventually = (assertion: () => void) => vi.waitFor(assertion, { timeout: 10_000 });

const reflectors: PodReflector[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

afterEach(async () => {
  await Promise.all(reflectors.splice(0).map((r) => r.stop()));
  vi.useRealTimers();
  // A few turns of the event loop for any late rejection to surface.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(unhandled.splice(0)).toEqual([]);
});

function setup(opts: { lists: Array<V1PodList | Error | Promise<V1PodList>>; steps?: Step[]; backoffMs?: number; restartMs?: number }) {
  const watch = new ScriptedWatch();
  watch.steps.push(...(opts.steps ?? []));
  const list = new ScriptedList();
  list.results.push(...opts.lists);
  const logs: Array<{ level: number; msg: string; retryInMs?: number }> = [];
  const log = createLogger({
    name: 'pod-reflector-test',
    level: 'debug',
    destination: { write: (line: string) => logs.push(JSON.parse(line)) },
  });
  const firstMs = opts.backoffMs ?? 1;
  const reflector = new PodReflector({
    namespace: NAMESPACE,
    labelSelector: SELECTOR,
    log,
    watch,
    list: list.fn,
    restartMs: opts.restartMs ?? 60_000,
    backoff: { firstMs, maxMs: firstMs * 8 },
  });
  reflectors.push(reflector);
  const changes: string[] = [];
  reflector.onChange((change: PodChange, p: V1Pod) => changes.push(`${change} ${p.metadata?.name}@${p.metadata?.resourceVersion}`));
  const retries = () => logs.filter((l) => l.msg.startsWith('pod watch failed')).map((l) => l.retryInMs);
  return { reflector, watch, list, changes, logs, retries };
}

describe('PodReflector on client-node ListWatch', () => {
  it('lists, then watches from the list’s resourceVersion; ADDED, MODIFIED and DELETED reach the cache and listeners', async () => {
    const { reflector, watch, list, changes, retries } = setup({ lists: [podList('10', pod('a', '9'))] });
    await reflector.start();
    expect(names(reflector.list())).toEqual(['a@9']);
    expect(watch.calls).toEqual([{ path: PATH, resourceVersion: '10', labelSelector: SELECTOR, allowWatchBookmarks: true }]);

    watch.open.emit('ADDED', pod('b', '11'));
    watch.open.emit('MODIFIED', pod('a', '12', 'Running'));
    watch.open.emit('DELETED', pod('b', '13'));

    expect(names(reflector.list())).toEqual(['a@12']);
    expect(reflector.get('a')?.status?.phase).toBe('Running');
    expect(reflector.get('b')).toBeUndefined();
    expect(changes).toEqual(['ADDED a@9', 'ADDED b@11', 'MODIFIED a@12', 'DELETED b@13']);
    expect(list.calls).toBe(1);
    expect(retries()).toEqual([]);
  });

  it('after a connection reset watches again from the same resourceVersion, without a relist or a second loop', async () => {
    const { reflector, watch, list, changes, retries } = setup({ lists: [podList('10', pod('a', '9'))] });
    await reflector.start();
    watch.open.emit('MODIFIED', pod('a', '12'));
    const broken = watch.open;

    broken.end(connectionReset());
    await eventually(() => expect(watch.opened).toHaveLength(2));

    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '12']);
    expect(list.calls).toBe(1);
    expect(retries()).toEqual([1]);
    // An event the dead connection still delivers is dropped; the new one's reaches each listener once.
    broken.emit('MODIFIED', pod('a', '99'));
    watch.open.emit('MODIFIED', pod('a', '13'));
    expect(changes).toEqual(['ADDED a@9', 'MODIFIED a@12', 'MODIFIED a@13']);
    expect(names(reflector.list())).toEqual(['a@13']);
    expect(watch.calls).toHaveLength(2);
  });

  it('a 410 Gone on connect drops the resourceVersion, relists and watches from the new list’s', async () => {
    const { reflector, watch, list, changes, retries } = setup({
      lists: [podList('10', pod('a', '9'), pod('b', '9')), podList('50', pod('a', '40'), pod('c', '45'))],
      steps: ['gone', 'open'],
    });
    await reflector.start();
    await eventually(() => expect(watch.opened).toHaveLength(1));

    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '50']);
    expect(list.calls).toBe(2);
    expect(names(reflector.list())).toEqual(['a@40', 'c@45']);
    expect(changes).toEqual(['ADDED a@9', 'ADDED b@9', 'DELETED b@9', 'MODIFIED a@40', 'ADDED c@45']);
    // A 410 is the protocol's, not a failure: no backoff.
    expect(retries()).toEqual([]);
  });

  it('a 410 in an ERROR event on an open watch also relists', async () => {
    const { reflector, watch, list } = setup({ lists: [podList('10', pod('a', '9')), podList('50', pod('a', '40'))] });
    await reflector.start();
    watch.open.emit('MODIFIED', pod('a', '20'));

    watch.open.emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
    await eventually(() => expect(watch.opened).toHaveLength(2));

    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '50']);
    expect(list.calls).toBe(2);
    expect(names(reflector.list())).toEqual(['a@40']);
  });

  it('a failed relist is retried with a growing backoff while the cache keeps serving', async () => {
    const relist = deferred<V1PodList>();
    const { reflector, watch, list, retries } = setup({
      lists: [podList('10', pod('a', '9')), new Error('HTTP 500'), new Error('HTTP 500'), relist.promise],
      steps: ['gone', 'open'],
      backoffMs: 2,
    });
    await reflector.start();
    await eventually(() => expect(list.calls).toBe(4));

    expect(retries()).toEqual([2, 4]);
    expect(names(reflector.list())).toEqual(['a@9']);
    expect(watch.opened).toHaveLength(0);

    relist.resolve(podList('60', pod('c', '55')));
    await eventually(() => expect(watch.opened).toHaveLength(1));
    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '60']);
    expect(names(reflector.list())).toEqual(['c@55']);
  });

  it('a list that never answers counts as failed after 60 s and is tried again', async () => {
    vi.useFakeTimers();
    const { reflector, watch, list, retries } = setup({
      lists: [new Promise<V1PodList>(() => {}), podList('10', pod('a', '9'))],
      backoffMs: 100,
    });
    const started = reflector.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(retries()).toEqual([100]);
    expect(list.calls).toBe(1);

    await vi.advanceTimersByTimeAsync(100);
    await started;
    expect(list.calls).toBe(2);
    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10']);
    expect(names(reflector.list())).toEqual(['a@9']);
  });

  it('is forced to watch again every restartMs, from the last resourceVersion', async () => {
    vi.useFakeTimers();
    const { reflector, watch, list, retries } = setup({ lists: [podList('10', pod('a', '9'))], restartMs: 30_000 });
    await reflector.start();
    watch.open.emit('MODIFIED', pod('a', '11'));

    await vi.advanceTimersByTimeAsync(30_000);
    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '11']);
    expect(watch.opened[0].handle.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '11', '11']);
    expect(list.calls).toBe(1);
    expect(retries()).toEqual([]);

    await reflector.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(watch.open.handle.signal.aborted).toBe(true);
  });

  describe('stop while starting', () => {
    it('during the first list: start rejects, the late list reaches neither the cache nor a watch', async () => {
      const first = deferred<V1PodList>();
      const { reflector, watch, list, changes } = setup({ lists: [first.promise] });
      const started = reflector.start();
      await eventually(() => expect(list.calls).toBe(1));

      await reflector.stop();
      await expect(started).rejects.toThrow(/stopped/);
      first.resolve(podList('10', pod('a', '9')));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));

      expect(watch.calls).toEqual([]);
      expect(list.calls).toBe(1);
      expect(reflector.list()).toEqual([]);
      expect(changes).toEqual([]);
    });

    it('during the backoff after a failed first list: no timer is left and nothing is tried again', async () => {
      vi.useFakeTimers();
      const { reflector, watch, list, retries } = setup({ lists: [new Error('HTTP 503'), podList('10')], backoffMs: 10_000 });
      const started = reflector.start();
      await eventually(() => expect(retries()).toEqual([10_000]));

      await reflector.stop();
      await expect(started).rejects.toThrow(/stopped/);
      expect(vi.getTimerCount()).toBe(0);
      await vi.runAllTimersAsync();
      expect(list.calls).toBe(1);
      expect(watch.calls).toEqual([]);
    });

    it('during ListWatch’s own wait before a reconnect: the wait is cut short and no watch opens', async () => {
      const { reflector, watch } = setup({ lists: [podList('10', pod('a', '9'))] });
      await reflector.start();
      // Two clean ends with no event between: ListWatch waits (1 s, its own floor) before the third connect.
      watch.open.end();
      await eventually(() => expect(watch.opened).toHaveLength(2));
      watch.open.end();

      await reflector.stop();
      expect(watch.calls.map((c) => c.resourceVersion)).toEqual(['10', '10']);
    });

    it('while the watch connects: stop does not wait for it, and the late connection is closed', async () => {
      const { reflector, watch, list } = setup({ lists: [podList('10', pod('a', '9'))], steps: ['hang'] });
      await reflector.start();
      await reflector.stop();

      watch.releaseConnect();
      await eventually(() => expect(watch.opened).toHaveLength(1));
      expect(watch.open.handle.signal.aborted).toBe(true);
      watch.open.emit('MODIFIED', pod('a', '99'));
      expect(names(reflector.list())).toEqual(['a@9']);
      expect(watch.calls).toHaveLength(1);
      expect(list.calls).toBe(1);
    });
  });

  describe('waitFor', () => {
    it('resolves at once when the pod already matches, and on a later change otherwise', async () => {
      const { reflector, watch } = setup({ lists: [podList('10', pod('a', '9', 'Running'), pod('b', '9'))] });
      await reflector.start();
      const running = (p: V1Pod | undefined) => p?.status?.phase === 'Running';

      await expect(reflector.waitFor('a', running)).resolves.toMatchObject({ metadata: { name: 'a' } });
      const b = reflector.waitFor('b', running);
      const gone = reflector.waitFor('a', (p) => p === undefined);
      watch.open.emit('MODIFIED', pod('b', '11', 'Running'));
      watch.open.emit('DELETED', pod('a', '12'));

      await expect(b).resolves.toMatchObject({ metadata: { resourceVersion: '11' }, status: { phase: 'Running' } });
      await expect(gone).resolves.toBeUndefined();
    });

    it('rejects when its signal aborts, and stop settles the others with the pod as last seen', async () => {
      const { reflector, watch } = setup({ lists: [podList('10', pod('a', '9'))] });
      await reflector.start();
      const never = () => false;
      const ac = new AbortController();

      const aborted = reflector.waitFor('a', never, ac.signal);
      ac.abort(new Error('copy start cancelled'));
      await expect(aborted).rejects.toThrow('copy start cancelled');

      const pending = reflector.waitFor('a', never);
      watch.open.emit('MODIFIED', pod('a', '11'));
      await reflector.stop();
      await expect(pending).resolves.toMatchObject({ metadata: { resourceVersion: '11' } });
    });

    it('a listener that throws does not stop the others or the cache', async () => {
      const { reflector, watch, changes } = setup({ lists: [podList('10')] });
      await reflector.start();
      const unsubscribe = reflector.onChange(() => {
        throw new Error('listener bug');
      });

      watch.open.emit('ADDED', pod('a', '11'));
      unsubscribe();
      watch.open.emit('MODIFIED', pod('a', '12'));

      expect(changes).toEqual(['ADDED a@11', 'MODIFIED a@12']);
      expect(names(reflector.list())).toEqual(['a@12']);
    });
  });
});
