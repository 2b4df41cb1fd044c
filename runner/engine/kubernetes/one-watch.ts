import { type KubeConfig, Watch } from '@kubernetes/client-node';
import type { Logger } from '../../../services/core/infra/log.js';
import { describeKubeError, raceAbort } from './watch-util.js';

/** What client-node's `ListWatch` calls to open a watch: the real `Watch`, or a scripted one in tests. */
export type WatchLike = Pick<Watch, 'watch'>;
type WatchArgs = Parameters<Watch['watch']>;

export interface OneWatchHooks {
  /** Every watch request is ended after this long (ms) and opened again from the last resourceVersion. */
  restartMs: number;
  /** Aborted when the reflector stops: nothing opens after it, nothing is reported after it. */
  stopped: AbortSignal;
  log: Logger;
  /** A watch is being opened, so the list before it (if any) is in ListWatch's cache. */
  onOpen(): void;
  /** An event arrived, or a request lived until its forced restart: the connection works (the reflector resets its backoff). */
  onWorking(): void;
  /** ListWatch's done handler chains that this starts, so stop() can wait for them to end. */
  track(work: Promise<unknown>): void;
}

// A `TimeoutError` is how client-node's own `Watch` reports its client-side timeout, and ListWatch
// answers it by watching again at once from the last resourceVersion (no relist, no error event):
// exactly what a forced restart wants.
function forcedRestart(): Error {
  return new DOMException('forced restart of the pod watch', 'TimeoutError');
}

/**
 * The `Watch` that the reflector hands to client-node's `ListWatch`: it wraps the real one so that at
 * most one watch request is open at a time and each ends after `restartMs`.
 *
 * Guards, each against a known way the informer goes wrong:
 * - Silent stops (kubernetes-client/javascript#364, #596, #958: a watch that ends with no event and no
 *   error): every request is ended after `restartMs` and reopened, as KubeSpawner does, so a dead one
 *   costs at most that long.
 * - Spam after reconnect (#1933: tens of watch requests a second once a connection came back): that
 *   came from several watch loops running at once, each late `done` of an aborted request starting
 *   another. Here a request reports its end to ListWatch at most once, never after ListWatch itself
 *   aborted it (client-node's `Watch` answers an abort with a late `done(AbortError)`, which ListWatch
 *   would take for an error, and whose handler aborts whichever request is current by then), and
 *   opening a second request ends the first.
 * - Rejections nobody awaits: ListWatch calls `done` without awaiting it, so a throwing `watch()`
 *   inside a reconnect would be an unhandled rejection; here a failure to open is reported to `done`
 *   and the promise always resolves.
 * - Late callbacks: events of a request that has ended, or arrive after stop, are dropped.
 */
export class OneWatch extends Watch {
  private endOpen: (() => void) | undefined;

  constructor(
    kc: KubeConfig,
    private readonly inner: WatchLike,
    private readonly hooks: OneWatchHooks,
  ) {
    super(kc);
  }

  /** Ends the open request, if any, without telling ListWatch (stop). */
  close(): void {
    this.endOpen?.();
  }

  override async watch(
    path: WatchArgs[0],
    queryParams: WatchArgs[1],
    callback: WatchArgs[2],
    done: WatchArgs[3],
  ): Promise<AbortController> {
    const { stopped, log } = this.hooks;
    // What ListWatch keeps and aborts (on stop, or before its next connect): that ends this request quietly.
    const handle = new AbortController();
    // ListWatch goes on to watch after a list even when stop() came during it.
    if (stopped.aborted) return handle;
    if (this.endOpen) {
      log.warn('a second pod watch was asked for while one was open; the first is ended');
      this.endOpen();
    }
    this.hooks.onOpen();

    const restartReason = forcedRestart();
    let ended = false;
    let innerHandle: AbortController | undefined;
    const restart = setTimeout(() => {
      log.debug({ openedAt: queryParams.resourceVersion }, 'pod watch restarted (forced)');
      this.hooks.onWorking();
      end(restartReason, true);
    }, this.hooks.restartMs);
    const end = (err: unknown, report: boolean) => {
      if (ended) return;
      ended = true;
      clearTimeout(restart);
      innerHandle?.abort();
      if (this.endOpen === quietEnd) this.endOpen = undefined;
      if (!report || stopped.aborted) return;
      if (err && err !== restartReason) log.debug({ error: describeKubeError(err) }, 'pod watch ended');
      this.hooks.track(Promise.resolve(done(err)));
    };
    const quietEnd = () => end(null, false);
    this.endOpen = quietEnd;
    handle.signal.addEventListener('abort', quietEnd, { once: true });

    const onEvent: WatchArgs[2] = (phase, obj, watchObj) => {
      if (ended || stopped.aborted) return;
      if (phase !== 'ERROR') this.hooks.onWorking();
      callback(phase, obj, watchObj);
      if (phase === 'ERROR') {
        // The API server ends a watch after an ERROR event; ListWatch has noted a 410 (it drops the
        // resourceVersion), so a plain end relists after a 410 and resumes from it after anything else.
        log.debug({ code: obj?.code, reason: obj?.reason }, 'pod watch ended by an ERROR event');
        end(null, true);
      }
    };
    const query = { ...queryParams, allowWatchBookmarks: true };
    const opening = (async () => this.inner.watch(path, query, onEvent, (err) => end(err, true)))();
    opening.then(
      (inner) => {
        innerHandle = inner;
        if (ended) inner.abort();
      },
      (err) => end(err, true),
    );
    // Stop must not wait for a connect that hangs.
    await raceAbort(
      opening.catch(() => undefined),
      stopped,
    );
    if (!ended) log.debug({ resourceVersion: queryParams.resourceVersion }, 'pod watch open');
    return handle;
  }
}
