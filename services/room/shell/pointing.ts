// A story step's `point`: the app's page draws a ring around the element, through the helper
// the content origin puts in every page (services/room/content/frame-helper.ts). Asked again
// whenever a new page in the frame says it is ready, so a step that opens a page rings it once
// it has loaded. The tour card moves out of the element's way. Part of shell.js.
import type { FrameRect, RoomMessage } from '../content/frame-messages.js';
import { frameOf, type ShellState } from './room-state.js';

type Pointing = { app: string; selector: string } | null;
type Box = { top: number; bottom: number; left: number; right: number };

let pointing: Pointing = null;

function askRing(state: ShellState) {
  const frame = pointing && frameOf(pointing.app);
  if (frame && frame.contentWindow && state.origins[pointing!.app]) {
    frame.contentWindow.postMessage({ type: 'pp:point', selector: pointing!.selector } satisfies RoomMessage, state.origins[pointing!.app]);
  }
}

/** Rings `next` (null: none), clearing the ring there was. */
export function ringFor(state: ShellState, next: Pointing) {
  const before = pointing;
  pointing = next;
  const frame = before && frameOf(before.app);
  if (frame && frame.contentWindow && state.origins[before!.app])
    frame.contentWindow.postMessage({ type: 'pp:clear' } satisfies RoomMessage, state.origins[before!.app]);
  document.getElementById('story')?.classList.remove('story-top');
  askRing(state);
}

/** Listens for the ringed app's page: ready (ring again), and where the ring is. */
export function listenForRings(state: ShellState) {
  window.addEventListener('message', (event) => {
    if (!pointing) return;
    const frame = frameOf(pointing.app);
    if (!frame || event.source !== frame.contentWindow || event.origin !== state.origins[pointing.app]) return;
    const message: { type?: unknown; rect?: FrameRect | null } = event.data || {};
    if (message.type === 'pp:ready') askRing(state);
    if (message.type === 'pp:pointed' && message.rect) keepCardClear(frame, message.rect);
  });
}

/** The ringed element's box in the room's viewport: the frame's box and the element's in it. */
export function elementBox(frame: Pick<Box, 'top' | 'left'>, rect: FrameRect): Box {
  return {
    top: frame.top + rect.top,
    bottom: frame.top + rect.top + rect.height,
    left: frame.left + rect.left,
    right: frame.left + rect.left + rect.width,
  };
}

/** Whether two boxes overlap (touching edges do not). */
export const overlaps = (a: Box, b: Box) => a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;

/** Puts the tour card at the top when, at the bottom, it would cover the ringed element. */
function keepCardClear(frame: HTMLIFrameElement, rect: FrameRect) {
  const panel = document.getElementById('story');
  if (!panel || panel.hidden) return;
  const element = elementBox(frame.getBoundingClientRect(), rect);
  panel.classList.remove('story-top');
  if (overlaps(panel.getBoundingClientRect(), element)) panel.classList.add('story-top');
}
