// The ring around the element a story step points at, drawn in the page's document. Part of
// frame-helper.js.
import type { FrameRect } from '../frame-messages.js';

let ring: HTMLElement | null = null;

export const clear = () => {
  if (ring) ring.remove();
  ring = null;
};

/** The ring's style around an element's box in the viewport, scrolled by `scroll`. */
export function ringStyle(box: FrameRect, scroll: { x: number; y: number }): Partial<CSSStyleDeclaration> {
  // In document coordinates, so it moves with the page as the viewer scrolls.
  return {
    position: 'absolute',
    left: `${box.left + scroll.x - 6}px`,
    top: `${box.top + scroll.y - 6}px`,
    width: `${box.width + 12}px`,
    height: `${box.height + 12}px`,
    boxSizing: 'border-box',
    border: '3px solid #f59f00',
    borderRadius: '8px',
    boxShadow: '0 0 0 4px rgba(245, 159, 0, .3)',
    pointerEvents: 'none',
    zIndex: '2147483647',
    margin: '0',
    padding: '0',
  };
}

/** Rings the first element `selector` finds; its box in the frame's viewport, or null. */
export function point(selector: string): FrameRect | null {
  clear();
  let el: Element | null = null;
  try {
    el = document.querySelector(selector);
  } catch {
    return null;
  }
  if (!el) return null;
  el.scrollIntoView({ block: 'center', inline: 'nearest' });
  const box = el.getBoundingClientRect();
  ring = document.createElement('div');
  ring.setAttribute('data-pp-ring', '');
  ring.setAttribute('aria-hidden', 'true');
  Object.assign(ring.style, ringStyle(box, { x: scrollX, y: scrollY }));
  document.documentElement.appendChild(ring);
  return { top: box.top, left: box.left, width: box.width, height: box.height };
}
