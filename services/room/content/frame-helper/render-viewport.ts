// The visible viewport drawn into a canvas by modern-screenshot, imported by URL from the
// content origin (/__pp/capture.js) when the first capture is asked (most viewers never
// comment). Part of frame-helper.js.
import type * as Screenshot from 'modern-screenshot';
import { canvasColor } from './canvas-color.js';
import { CUT, cutPlan, putStandIns } from './cut-plan.js';

/**
 * The longest an image or font of the page may take to load into the picture (ms). An image in
 * view has loaded long before the viewer comments; one still loading (a lazy image below the
 * fold) is not in the picture, but the library waits for it all the same.
 */
const ASSET_MS = 2500;

let library: Promise<typeof Screenshot> | null = null;
/** modern-screenshot, imported once (again after a failed import). */
const loadLibrary = (libraryUrl: string) =>
  (library ??= (import(/* @vite-ignore */ libraryUrl) as Promise<typeof Screenshot>).catch((err: unknown) => {
    library = null;
    throw err;
  }));

/**
 * A clone's own translation undone (restoreScrollPosition moved it by -x, -y); an identity left
 * over goes, since any transform would hold the page's fixed elements.
 */
function unscroll(child: HTMLElement, x: number, y: number) {
  const m = new DOMMatrix(child.style.transform);
  m.e += x;
  m.f += y;
  child.style.transform = m.isIdentity ? '' : m.toString();
}

/** The visible viewport, drawn by modern-screenshot into a canvas at scale 1. */
export async function renderViewport(libraryUrl: string): Promise<HTMLCanvasElement> {
  const lib = await loadLibrary(libraryUrl);
  const x = scrollX;
  const y = scrollY;
  const html = document.documentElement;
  const scroller = document.scrollingElement || html;
  const { keep, cuts } = cutPlan();
  // The parents of left-out elements carry a mark for as long as the page is cloned, so their
  // clones can be found to take the stand-ins.
  const marked = [...cuts.keys()];
  marked.forEach((el, i) => el.setAttribute(CUT, String(i)));
  const standIns = [...cuts.values()];
  const unmark = () => marked.forEach((el) => el.removeAttribute(CUT));
  try {
    return await lib.domToCanvas(html, {
      width: innerWidth,
      height: innerHeight,
      scale: 1,
      backgroundColor: canvasColor(),
      // The whole document, moved up and left by the scroll: the picture's box is the viewport.
      // `top`, not a transform, so position:fixed elements stay where the viewer sees them. The
      // root keeps its children's margins inside it, as the real root does (in the picture it is
      // an element like any other, which a first heading's margin would push down, and every
      // box placed against it with it).
      style: {
        ...(getComputedStyle(html).display === 'block' ? { display: 'flow-root' } : {}),
        position: 'relative',
        top: `${-y}px`,
        left: `${-x}px`,
        height: `${Math.max(html.scrollHeight, innerHeight + y)}px`,
      },
      // Scrolled boxes inside the page show what they show the viewer...
      features: { restoreScrollPosition: true },
      onCloneNode: (cloned) => {
        const root = cloned as HTMLElement;
        unmark();
        putStandIns(root, standIns);
        // ...but the page's own scroll is already in `top`: the library's transform for it goes.
        if (!x && !y) return;
        const scrolled = scroller === html ? root : [...root.children].find((c) => c.localName === 'body');
        for (const child of (scrolled ? scrolled.children : []) as Iterable<HTMLElement>) {
          if (child.style && child.style.transform) unscroll(child, x, y);
        }
      },
      // What is in view, and all of shadow trees and same-origin frames (not in the plan's
      // look through the document): never the ring.
      filter: (node) =>
        node.nodeType !== 1 ||
        (!(node as Element).hasAttribute('data-pp-ring') && (keep.has(node as Element) || node.getRootNode() !== document)),
      timeout: ASSET_MS,
    });
  } finally {
    unmark();
  }
}
