// The app frames as the shell hears them: each frame's loads, and the screen its page says it is
// on (frame-helper.js): a page that loaded without saying so (no helper in it) leaves no screen
// behind from the page before. And what the viewer's voice (voice.js) needs of the shell: the
// frames, their origins, the app in view, and word of a frame's load and a tab shown. Part of
// shell.js.
import type { RoomHooks } from './room-hooks.js';
import { fire, frameOf, type ShellState } from './room-state.js';

/** Follows a frame's loads (each app frame as the shell starts, and one a reload puts in). */
export function watchFrame(state: ShellState, frame: HTMLIFrameElement) {
  frame.addEventListener('load', () => {
    const app = frame.dataset.app!;
    if (!state.readySinceLoad[app]) delete state.screens[app];
    state.readySinceLoad[app] = false;
    fire(state, 'frameLoad', app);
  });
}

/** The app whose frame `source` is, when the message came from its origin. */
function appOfWindow(state: ShellState, source: MessageEventSource | null, origin: string) {
  return state.data.apps.find((a) => state.origins[a.id] === origin && frameOf(a.id) && frameOf(a.id)!.contentWindow === source);
}

/** Watches every app frame, and keeps the screen each app's page says it is on. */
export function watchFrames(state: ShellState) {
  for (const frame of document.querySelectorAll<HTMLIFrameElement>('iframe[data-app]')) watchFrame(state, frame);
  window.addEventListener('message', (event) => {
    const app = appOfWindow(state, event.source, event.origin);
    const message: { type?: unknown; screen?: unknown } = event.data || {};
    if (!app || (message.type !== 'pp:ready' && message.type !== 'pp:screen') || typeof message.screen !== 'string') return;
    state.screens[app.id] = message.screen;
    state.readySinceLoad[app.id] = true;
  });
}

/** What voice.js is handed (window.ppVoice). */
export function roomHooks(state: ShellState): RoomHooks {
  const { data } = state;
  return {
    data,
    post: state.post,
    frameOf,
    originOf: (app) => state.origins[app] || null,
    appPath: (app) => (data.apps.find((a) => a.id === app) || {}).path || null,
    currentApp: () => (data.apps.some((a) => a.id === state.current) ? state.current : null),
    appOfWindow: (source, origin) => {
      const app = appOfWindow(state, source, origin);
      return app ? app.id : null;
    },
    onFrameLoad: (f) => state.hooks.frameLoad.push(f),
    onShow: (f) => state.hooks.show.push(f),
  };
}
