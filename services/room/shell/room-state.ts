// What the shell's parts share (shell.ts makes one at the start): the page's data, the calls to
// the room's endpoints, the tab in view, each app's content origin, the screen each app's page
// says it is on, the time counted for the beat, and word of a frame's load and a tab shown (which
// voice.js hears through RoomHooks). Part of shell.js.
import type { ShellData } from '@demo-rooms/contract';
import type { BodyOf, ShellCall } from './room-hooks.js';
import { VisitClock } from './visit-clock.js';

export type Post = <C extends ShellCall>(path: C, body: BodyOf<C>) => Promise<Response>;
type Hooks = { frameLoad: ((app: string) => void)[]; show: ((id: string) => void)[] };

export type ShellState = {
  data: ShellData;
  /** `/room/<session>`: where the shell's endpoints are. */
  base: string;
  post: Post;
  tabs: HTMLElement[];
  /** The tab in view (an app's or a page's id). */
  current: string | null;
  /** Each opened app's content origin, from its grant. */
  origins: Record<string, string>;
  /** The screen each app's page last said it is on (frame-helper.js). */
  screens: Record<string, string>;
  /** Whether the app's page said where it is since its frame last loaded. */
  readySinceLoad: Record<string, boolean>;
  clock: VisitClock;
  hooks: Hooks;
};

/** The shell's state, from the page's data (the JSON in #room-data). */
export function createShellState(data: ShellData): ShellState {
  const base = `/room/${data.sessionId}`;
  const post: Post = (path, body) =>
    fetch(`${base}/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    data,
    base,
    post,
    tabs: Array.from(document.querySelectorAll<HTMLElement>('[role="tab"]')),
    current: null,
    origins: {},
    screens: {},
    readySinceLoad: {},
    clock: new VisitClock(
      () => performance.now(),
      () => document.visibilityState === 'visible',
    ),
    hooks: { frameLoad: [], show: [] },
  };
}

/** Tells voice.js (and any part listening) of a frame's load or a tab shown. */
export function fire(state: ShellState, name: keyof Hooks, arg: string) {
  for (const f of state.hooks[name]) f(arg);
}

/** The frame an app shows in (the newest, while a reload behind it runs: it comes first). */
export function frameOf(appId: string) {
  return document.querySelector<HTMLIFrameElement>(`iframe[data-app="${appId}"]`);
}

/** Adds the time since the last call to the tab in view, if the room was visible all along. */
export function account(state: ShellState) {
  state.clock.account(state.current);
}
