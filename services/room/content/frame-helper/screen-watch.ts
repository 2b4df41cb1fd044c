// Which screen of the app the viewer is on: each new document says so when ready (pp:ready), and
// a navigation inside the document (a single-page app's router, an anchor) when it happens
// (pp:screen). And whether the app routes by its hash while it runs. Part of frame-helper.js.
import type { FrameMessage } from '../frame-messages.js';

/** screen: location.pathname + search + hash. */
export const screenNow = () => location.pathname + location.search + location.hash;

/** Tells the room of every move inside the document, and of the document once ready. */
export function watchScreen(send: (message: FrameMessage) => void) {
  let lastScreen = screenNow();
  const moved = () => {
    const screen = screenNow();
    if (screen === lastScreen) return;
    lastScreen = screen;
    send({ type: 'pp:screen', screen });
  };
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name];
    if (typeof original !== 'function') continue;
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      moved();
      return result;
    };
  }
  window.addEventListener('popstate', moved);
  window.addEventListener('hashchange', moved);
  return {
    /** A new document in the frame (a navigation inside the app) can take a ring again. */
    ready: () => {
      lastScreen = screenNow();
      send({ type: 'pp:ready', screen: lastScreen });
    },
  };
}

/**
 * Whether the app routes by its hash while it runs: a router listens for hashchange or popstate.
 * Counted from the call on, so the helper's own listeners before it are not; the helper runs in
 * the page's head, before the app's scripts.
 */
export function watchRouting(): () => boolean {
  let routerListens = false;
  const addListener = window.addEventListener;
  window.addEventListener = function (this: Window, type: string, ...rest: unknown[]) {
    if (type === 'hashchange' || type === 'popstate') routerListens = true;
    return (addListener as (...args: unknown[]) => void).apply(this, [type, ...rest]);
  } as typeof window.addEventListener;
  return () => routerListens || window.onhashchange != null || window.onpopstate != null;
}
