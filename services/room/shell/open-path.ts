// Opens a page of an app in its frame (a story step's `path`). When the page the app is on
// differs from the step's only in the hash (a hash-routed app, `#/tag/op`), the app's own page
// moves its hash through the frame helper (frame-helper.js, pp:hash): the app routes as if the
// viewer clicked a link, keeping its state, and nothing reloads. Otherwise the frame's address is
// set anew, even when it equals the last one set (through a blank frame: setting `src` to the
// value it already holds would not move the app). Part of shell.js.
import type { RoomMessage } from '../content/frame-messages.js';
import { frameOf, type ShellState } from './room-state.js';

/** How long a hash-only step waits to hear the app took the hash before it loads the step's address. */
const HASH_TAKEN_MS = 2_000;

/**
 * How the frame gets to `target` from the screen its page is on (null: unknown): `hash` moves
 * the page's hash, `stay` leaves it (already there), `load` sets the frame's address.
 */
export function pathMove(target: URL, on: URL | null): 'hash' | 'stay' | 'load' {
  if (!on || !target.hash || on.pathname !== target.pathname || on.search !== target.search) return 'load';
  return on.hash !== target.hash ? 'hash' : 'stay';
}

/** The last address each app was sent to, so a late check knows whether another step came since. */
const lastOpened: Record<string, string> = {};

export function openPath(state: ShellState, appId: string, path: string) {
  const { origins, screens } = state;
  const frame = frameOf(appId)!;
  const target = new URL(path, origins[appId]);
  lastOpened[appId] = target.href;
  const screenNow = () => (screens[appId] != null ? new URL(screens[appId], origins[appId]) : null);
  const move = pathMove(target, screenNow());
  if (move === 'stay') return;
  if (move === 'hash') {
    frame.contentWindow!.postMessage({ type: 'pp:hash', hash: target.hash } satisfies RoomMessage, origins[appId]);
    // The helper tells of the new hash (pp:screen) as soon as the app has it. An app that did
    // not take it (it reads its hash only when it loads, or the message was lost on a busy
    // page) gets the step's address loaded instead: a step lands whatever the app does.
    setTimeout(() => {
      // Unless another step has been opened since.
      if (lastOpened[appId] === target.href && screenNow()?.hash !== target.hash && frame.isConnected) frame.src = target.href;
    }, HASH_TAKEN_MS);
    return;
  }
  const url = target.href;
  if (frame.getAttribute('src') === url) frame.src = 'about:blank';
  frame.src = url;
}
