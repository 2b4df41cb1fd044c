import type { Logger } from '../../services/core/infra/log.js';
import type { CopyEngine, CopyExit } from '../engine/copy-engine.js';

// The runner follows the engine's exits of its own copies instead of polling each copy: an exit
// or OOM kill is known within milliseconds, so a start fails fast and a crashed copy's record is
// closed at once. A broken stream is reopened with backoff from the last exit it told of; because
// exits may have been missed meanwhile, `onResume` asks the caller to reconcile. Told twice of an
// exit after a reopen, the runner finds the copy's record already ended.

export interface ExitFollower {
  /** Settles once the stream first opened (or first failed to): reconcile after it, so nothing falls between. */
  ready: Promise<void>;
  stop(): void;
}

export function followExits(opts: {
  engine: CopyEngine;
  runnerId: string;
  log: Logger;
  onExit: (exit: CopyExit) => void;
  onResume: () => void;
}): ExitFollower {
  const ac = new AbortController();
  let delay = 250;
  let since: number | undefined;
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => (opened = resolve));

  const follow = async (resumed: boolean) => {
    let exits: AsyncIterable<CopyExit>;
    try {
      exits = await opts.engine.exits(opts.runnerId, { since, signal: ac.signal });
    } catch (err) {
      if (ac.signal.aborted) return;
      opts.log.warn({ err: (err as Error).message }, 'engine exit stream not open');
      opened();
      return retry();
    }
    delay = 250;
    opened();
    if (resumed) opts.onResume();
    try {
      for await (const exit of exits) {
        if (exit.at) since = exit.at;
        opts.onExit(exit);
      }
    } catch (err) {
      if (!ac.signal.aborted) opts.log.warn({ err: (err as Error).message }, 'engine exit stream broke');
    }
    retry();
  };

  const retry = () => {
    if (ac.signal.aborted) return;
    const wait = delay;
    delay = Math.min(delay * 2, 10_000);
    setTimeout(() => void follow(true), wait).unref();
  };

  void follow(false);
  return {
    ready,
    stop() {
      ac.abort();
    },
  };
}
