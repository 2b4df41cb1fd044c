// The beat: the time counted (visit-clock.ts) goes to the room every flush while the room is in
// view, at once by beacon when it goes out of view (the page may never come back), and with the
// leave when the page goes. Part of shell.js.
import type { BodyOf } from './room-hooks.js';
import { account, type ShellState } from './room-state.js';

type Beat = BodyOf<'beat'>;

/** A beat's body: the time, said to be a container copy's when the room is one, and a flag. */
export function beatBody(kind: string | null, time: Beat['time'], flag: Partial<Beat> = {}): Beat {
  const body: Beat = kind === 'container' ? { time, copy: true } : { time };
  return { ...body, ...flag };
}

/** Starts the flushes and the beacons; the visit's time counts from the tab shown first. */
export function startBeat(state: ShellState) {
  const { data, base } = state;
  const take = () => state.clock.take(state.current).time;
  const beacon = (path: 'beat' | 'leave', flag: Partial<Beat> = {}) =>
    navigator.sendBeacon(`${base}/${path}`, JSON.stringify(beatBody(data.kind, take(), flag)));
  // A tab back in view says so with its next flush (the time outside the room ends there).
  let shown = false;
  setInterval(() => {
    if (document.visibilityState !== 'visible') return;
    state.post('beat', beatBody(data.kind, take(), shown ? { shown: true } : {})).catch(() => {});
    shown = false;
  }, data.flushMs);
  // Hidden: what was seen so far goes now, by beacon, as the page may never come back.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') beacon('beat', { hidden: true });
    else {
      account(state);
      shown = true;
    }
  });
  addEventListener('pagehide', () => beacon('leave'));
  // Back from the browser's page cache: the visit ended at pagehide; the next flush, shown,
  // starts another (a beat not shown right after a leave is the leave's straggler).
  addEventListener('pageshow', (event: PageTransitionEvent) => {
    if (!event.persisted) return;
    account(state);
    shown = true;
  });
}
