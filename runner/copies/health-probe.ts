import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

// The runner probes a copy's health path itself (demo images may have no curl for a HEALTHCHECK,
// and no internet). Only 200 counts. Polls start 5 ms apart and widen to 250 ms: a refused
// connection costs nothing, and most demos answer within a few hundred ms of starting, so early
// tight polls are what keep the cold start close to the raw engine's.

export class ProbeTimeout extends Error {
  constructor(
    readonly lastStatus: number | null,
    readonly lastError: string | null,
  ) {
    super(
      lastStatus !== null
        ? `health path answered ${lastStatus}, never 200`
        : `health path never answered${lastError ? ` (${lastError})` : ''}`,
    );
    this.name = 'ProbeTimeout';
  }
}

export interface ProbeOptions {
  /** Gives up (ProbeTimeout) at this time (ms since the epoch). */
  deadline: number;
  /** Aborts at once with the signal's reason: the copy exited, or its viewer left. */
  signal?: AbortSignal;
  /** Called between polls, at most every `checkEveryMs`: throws to stop (e.g. the container is gone). */
  check?: () => Promise<void>;
  checkEveryMs?: number;
}

export async function probeHealth(url: string, opts: ProbeOptions): Promise<number> {
  let wait = 5;
  let polls = 0;
  let lastStatus: number | null = null;
  let lastError: string | null = null;
  let lastCheck = Date.now();
  for (;;) {
    opts.signal?.throwIfAborted();
    const left = opts.deadline - Date.now();
    if (left <= 0) throw new ProbeTimeout(lastStatus, lastError);
    polls++;
    try {
      const signals = [AbortSignal.timeout(Math.min(left, 2_000)), ...(opts.signal ? [opts.signal] : [])];
      // undici's request, not fetch: a crowd's starts probe thousands of copies at once, and
      // fetch's streams cost more than the probe (a cancelled body made a DOMException each).
      // Redirects are not followed: only the health path's own 200 counts.
      const res = await request(url, { signal: AbortSignal.any(signals), headers: { 'user-agent': 'demo-rooms-runner' } });
      await res.body.dump();
      if (res.statusCode === 200) return polls;
      lastStatus = res.statusCode;
    } catch (err) {
      opts.signal?.throwIfAborted();
      const e = err as { code?: string; cause?: { code?: string } };
      lastError = e.code ?? e.cause?.code ?? (err as Error).name;
    }
    if (opts.check && Date.now() - lastCheck >= (opts.checkEveryMs ?? 1_000)) {
      lastCheck = Date.now();
      await opts.check();
    }
    await sleep(Math.min(wait, Math.max(0, opts.deadline - Date.now())), undefined, { signal: opts.signal });
    wait = Math.min(wait * 1.25, 250);
  }
}
