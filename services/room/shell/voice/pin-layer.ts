// The layer over the app's frame that takes a click (a point) or a drag (an area) to pin a
// comment to, or Enter or Space (the middle of the screen), and takes the app's picture as the
// viewer saw it when they pinned. Part of voice.js.
import type { CommentBody } from '@demo-rooms/contract';
import type { RoomHooks } from '../room-hooks.js';
import type { Picture } from './capture-ask.js';
import { type Fraction, fractionIn, markBox, pinSpot } from './pin-spot.js';

/** Where a comment is pinned, on which app and device, and its picture (taken as it was pinned). */
export type Pin = Pick<CommentBody, 'position' | 'area' | 'device'> & { app: string; picture: Promise<Picture> };

/** Which hold each frame is under: only the newest one lets go (a new pin while a picture renders). */
const holds = new WeakMap<HTMLElement, object>();
/**
 * Keeps the app's frame at its size until its picture is taken, and returns what lets it go.
 * The point is a fraction of the area the viewer tapped in; on a phone the comment sheet below
 * the app grows as the pin opens the form, and the app's visible area would shrink under the
 * capture, giving a picture of a smaller area than the point's (issue 47, item 3: the pin was
 * drawn on a line above the one tapped). Meanwhile the frame's foot is hidden under the sheet.
 */
function holdSize(box: HTMLElement): () => void {
  const token = {};
  holds.set(box, token);
  const r = box.getBoundingClientRect();
  Object.assign(box.style, { width: `${r.width}px`, height: `${r.height}px` });
  box.parentElement!.classList.add('holding');
  return () => {
    if (holds.get(box) !== token) return;
    holds.delete(box);
    Object.assign(box.style, { width: '', height: '' });
    box.parentElement!.classList.remove('holding');
  };
}

export type Pinning = {
  /** The pin placed, until it is dropped (the comment sent, the panel closed, a new layer). */
  pin: () => Pin | null;
  /** A new layer over the app's frame (any pin there was goes); false when the app has no frame. */
  layOver: (app: string) => boolean;
  /** The layer and its pin go. */
  drop: () => void;
  focus: () => void;
};

/** `capture` takes the app's picture; `pinned` is called when a pin is placed (the form opens). */
export function pinning(room: RoomHooks, capture: (app: string) => Promise<Picture>, pinned: () => void, dropped: () => void): Pinning {
  let layer: HTMLElement | null = null;
  let pin: Pin | null = null;

  function drop() {
    if (layer) layer.remove();
    layer = null;
    pin = null;
    dropped();
  }

  function layOver(app: string) {
    drop();
    const box = room.frameOf(app) && room.frameOf(app)!.parentElement;
    if (!box) return false;
    const over = document.createElement('div');
    layer = over;
    over.className = 'pin-layer';
    over.setAttribute('aria-label', 'Click or drag on the app to pin your comment');
    const mark = document.createElement('div');
    mark.className = 'pin-mark';
    over.append(mark);
    box.append(over);
    let start: Fraction | null = null;
    const at = (event: PointerEvent) => fractionIn(over.getBoundingClientRect(), event.clientX, event.clientY);
    // In pixels from the frame's top left, not fractions: when the frame is shorter later (a
    // phone's comment sheet grows below it), the mark stays on what the viewer tapped.
    const draw = (a: Fraction, b: Fraction) => Object.assign(mark.style, markBox(a, b, over.getBoundingClientRect()));
    over.addEventListener('pointerdown', (event) => {
      if (pin) return;
      start = at(event);
      over.setPointerCapture(event.pointerId);
      mark.className = 'pin-mark';
      draw(start, start);
    });
    over.addEventListener('pointermove', (event) => {
      if (start && !pin) draw(start, at(event));
    });
    // From the keyboard: Enter or Space pins the comment to the middle of the screen.
    over.tabIndex = 0;
    over.setAttribute('role', 'button');
    over.addEventListener('keydown', (event) => {
      if (pin || (event.key !== 'Enter' && event.key !== ' ')) return;
      event.preventDefault();
      start = { x: 0.5, y: 0.5 };
      place(start);
    });
    over.addEventListener('pointerup', (event) => {
      if (!start || pin) return;
      place(at(event));
    });
    function place(end: Fraction) {
      const from = start!;
      const spot = pinSpot(from, end, over.getBoundingClientRect());
      mark.className = spot.area ? 'pin-mark area' : 'pin-mark point';
      if (!spot.area) draw(from, from);
      start = null;
      // The picture is taken now, as the viewer saw the screen they pinned; the form waits for it.
      const device = (box!.className.replace(/^frame frame-/, '') || 'none') as Pin['device'];
      const release = holdSize(box!);
      pin = { ...spot, app, device, picture: capture(app).finally(release) };
      pinned();
    }
    return true;
  }

  return { pin: () => pin, layOver, drop, focus: () => layer?.focus({ preventScroll: true }) };
}
