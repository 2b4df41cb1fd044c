// What the page's canvas shows where nothing is drawn, for the picture's background. Part of
// frame-helper.js.

/** Whether a computed colour paints nothing (none, `transparent`, or an alpha of 0). */
export const transparent = (color: string | null | undefined) =>
  !color || color === 'transparent' || /(?:,|\/)\s*0(?:\.0*)?\s*\)$/.test(color);

/**
 * What the page's canvas shows where nothing is drawn, as the browser paints it: the root's
 * colour, else the body's, else the canvas colour of the page's colour scheme (white for a light
 * page). The picture is filled with it first: nothing in it stays transparent, which an image
 * viewer would show on its own background (black, with the page's dark text unreadable on it).
 */
export function canvasColor(): string {
  const root = getComputedStyle(document.documentElement).backgroundColor;
  if (!transparent(root)) return root;
  const body = document.body && getComputedStyle(document.body).backgroundColor;
  if (body && !transparent(body)) return body;
  const probe = document.createElement('pp-canvas-probe');
  probe.style.cssText = 'display:block;position:absolute;width:0;height:0;background-color:Canvas';
  document.documentElement.appendChild(probe);
  const canvas = getComputedStyle(probe).backgroundColor;
  probe.remove();
  return transparent(canvas) ? '#ffffff' : canvas;
}
