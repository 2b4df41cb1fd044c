// Where a comment is pinned, from where the viewer pressed and let go on the app's frame: a point
// (a click, or a move of a few pixels) or an area (a drag), each a fraction of the frame's box.
// Pure. Part of voice.js (pin-layer.ts).
import type { CommentBody } from '@demo-rooms/contract';

export type Fraction = { x: number; y: number };
export type Spot = Pick<CommentBody, 'position' | 'area'>;

/** Where `clientX/Y` falls in `box`, as fractions of it, held inside it. */
export function fractionIn(box: { left: number; top: number; width: number; height: number }, clientX: number, clientY: number): Fraction {
  return {
    x: Math.min(1, Math.max(0, (clientX - box.left) / box.width)),
    y: Math.min(1, Math.max(0, (clientY - box.top) / box.height)),
  };
}

/** A move of a few pixels is a click, not a drag. */
export const DRAG_PX = 6;

const round = (n: number) => Math.round(n * 10000) / 10000;

/** The pin from `from` to `end` on a frame of `size` (CSS pixels): a point or an area, rounded. */
export function pinSpot(from: Fraction, end: Fraction, size: { width: number; height: number }): Spot {
  const dragged = Math.abs(end.x - from.x) * size.width > DRAG_PX || Math.abs(end.y - from.y) * size.height > DRAG_PX;
  return dragged
    ? {
        position: null,
        area: {
          x: round(Math.min(from.x, end.x)),
          y: round(Math.min(from.y, end.y)),
          width: round(Math.abs(end.x - from.x)),
          height: round(Math.abs(end.y - from.y)),
        },
      }
    : { position: { x: round(from.x), y: round(from.y) }, area: null };
}

/** The mark's box in pixels from the frame's top left (it stays on what was tapped if the frame shrinks). */
export function markBox(a: Fraction, b: Fraction, size: { width: number; height: number }) {
  return {
    left: `${Math.min(a.x, b.x) * size.width}px`,
    top: `${Math.min(a.y, b.y) * size.height}px`,
    width: `${Math.abs(a.x - b.x) * size.width}px`,
    height: `${Math.abs(a.y - b.y) * size.height}px`,
  };
}
