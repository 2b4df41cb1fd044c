import type { CopyView } from '@demo-rooms/contract/runner';

// What a viewer reads while their own copy of a container demo is not (yet) in front of them
// (spec 7, "Container copy states"). Waiting states say so; the shell keeps asking.

/** After this long in the queue, "high demand" becomes "still in high demand". */
const stillWaitingMs = 60_000;

export type CopyNotice = {
  state: CopyView['state'];
  title: string;
  message: string;
  waiting: boolean;
  place?: number;
  /** Queued: when the shell should ask again (ms), as the runner says. */
  retryMs?: number;
  version: string;
};

export function copyNotice(view: CopyView, now = Date.now()): CopyNotice {
  const base = { state: view.state, version: view.version, place: view.place, retryMs: view.retryMs };
  switch (view.state) {
    case 'starting':
      return { ...base, title: 'Starting', message: 'Your own copy of the demo is starting…', waiting: true };
    case 'queued': {
      const long = view.queuedSince !== undefined && now - Date.parse(view.queuedSince) > stillWaitingMs;
      const place = view.place ? ` You are number ${view.place} in line.` : '';
      return long
        ? { ...base, title: 'Still in high demand', message: `Still in high demand: thanks for waiting.${place}`, waiting: true }
        : {
            ...base,
            title: 'High demand',
            message: `High demand right now: your copy starts as soon as one is free.${place}`,
            waiting: true,
          };
    }
    case 'full':
      return {
        ...base,
        title: 'Demo full',
        message: 'Everyone this demo can hold at once is in it right now. Try again in a few minutes.',
        waiting: false,
      };
    case 'spend':
      return {
        ...base,
        title: 'Live demo paused',
        message: 'The live demo is paused for the platform right now. The rest of the room is open.',
        waiting: false,
      };
    case 'paused':
      return { ...base, title: 'Paused while away', message: 'Your copy was paused while you were away. Resuming…', waiting: true };
    case 'failed':
      // Not ready within the runner's start deadline (RUNNER_START_DEADLINE_S): its slot went to
      // whoever waits, and a later reload starts a fresh copy.
      if (view.detail === 'deadline') {
        return {
          ...base,
          title: 'Could not start',
          message: 'The demo took too long to start, so it was stopped. Reload in a moment to try again.',
          waiting: false,
        };
      }
      return {
        ...base,
        title: 'Could not start',
        message: 'The demo could not start (it did not start or did not answer its health check). Reload to try again.',
        waiting: false,
      };
    case 'gone':
      // A crash is not something that happened while the viewer was away: say it stopped, and
      // leave the fresh start to them (entering again starts one).
      if (view.detail === 'exited' || view.detail === 'oom') {
        return {
          ...base,
          title: 'The demo stopped',
          message: 'The demo stopped: its server quit unexpectedly. Reload to start a fresh copy.',
          waiting: false,
        };
      }
      // Its runner host stopped beating (docs/runner.md, "Several runner hosts"): a fresh copy
      // starts on another machine at the shell's next request.
      if (view.detail === 'host-lost') {
        return {
          ...base,
          title: 'Moved to another machine',
          message: 'The machine your copy ran on stopped. Starting a fresh copy on another one…',
          waiting: true,
        };
      }
      return { ...base, title: 'Starting again', message: 'Your copy ended while you were away. Starting a fresh one…', waiting: true };
    case 'running':
      return { ...base, title: 'Ready', message: '', waiting: false };
  }
}
