// The room's helper inside a build's pages: the content origin adds it to every HTML document it
// serves (static-files.ts, and a viewer's copy's pages in copy-forward.ts), so the room's shell
// can ring the element a story step points at, know which screen the viewer is on, and get a
// picture of what the viewer sees when they pin a comment. It listens to the room's own window
// only (the origin the script tag names, and the parent frame), and touches nothing else of the
// page but the ring it draws, a mark (data-pp-cut) on some elements for as long as a picture's
// clone is made, and the WebGL contexts the page makes, which keep their drawing to be read.
//
// Messages (postMessage, the room's origin only):
//   frame → room  {type:'pp:ready', screen}          each document, once parsed
//                 {type:'pp:screen', screen}         a navigation inside the document (history, hash)
//   room → frame  {type:'pp:point', selector}  →  {type:'pp:pointed', selector, rect|null}
//                 {type:'pp:clear'}
//                 {type:'pp:hash', hash}         a story step that moves only the hash (below)
//                 {type:'pp:capture', nonce, maxBytes}
//                     →  {type:'pp:capture-ack', nonce, budgetMs}                  at once
//                         (budgetMs: the longest this frame will take to answer, grown with its DOM)
//                     →  {type:'pp:captured', nonce, ok:true, blob, imageType, width, height, screen}
//                      | {type:'pp:captured', nonce, ok:false, note, screen}
//   screen is location.pathname + search + hash. A picture is the visible viewport at scale 1
//   (width × height = the frame's CSS viewport), PNG, or WebP when the PNG passes maxBytes;
//   imageType ('image/png' or 'image/webp', also the blob's own type) is not called `type`,
//   which names the message.
//   note: 'too-large' (still over maxBytes as WebP), 'tainted' (the canvas could not be read),
//   'blocked' (the page's own Content-Security-Policy stopped the render), 'failed' (anything
//   else, or no picture within the budget).
//   The messages' types: frame-messages.ts.
//
// Built by Vite into one self-contained classic script (services/room/dist/frame-helper.js,
// infra/local/room-scripts.mjs), run before the page's own scripts: nothing here is imported at
// run time but the screenshot library, by URL.
import type * as Screenshot from 'modern-screenshot';
import type { CaptureAnswer, FrameMessage, FrameRect } from './frame-messages.js';

/** A room message as it arrives: any value; each field is checked where it is read. */
type Incoming = { type?: unknown; selector?: unknown; nonce?: unknown; maxBytes?: unknown; hash?: unknown };
/** Where a stand-in goes among its parent's kept children, and its tag and style. */
type Cut = { after: number; tag: string; box: string };

(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const room = script && script.dataset.room;
  if (!script || !room || window.parent === window) return;
  // Once a document, even if a page carries the tag twice (an app that copied it into its own
  // HTML, a fragment put in by script): a second helper would answer every message again.
  const running = Symbol.for('pp.frame-helper');
  if ((window as unknown as Record<symbol, unknown>)[running]) return;
  Object.defineProperty(window, running, { value: true });
  const send = (message: FrameMessage) => window.parent.postMessage(message, room);
  const screenNow = () => location.pathname + location.search + location.hash;

  let ring: HTMLElement | null = null;
  const clear = () => {
    if (ring) ring.remove();
    ring = null;
  };

  /** Rings the first element `selector` finds; its box in the frame's viewport, or null. */
  function point(selector: string): FrameRect | null {
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
    // In document coordinates, so it moves with the page as the viewer scrolls.
    Object.assign(ring.style, {
      position: 'absolute',
      left: `${box.left + scrollX - 6}px`,
      top: `${box.top + scrollY - 6}px`,
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
    });
    document.documentElement.appendChild(ring);
    return { top: box.top, left: box.left, width: box.width, height: box.height };
  }

  // --- Comment screenshots ---

  // A WebGL canvas's picture is gone once the browser has shown it (preserveDrawingBuffer false,
  // the default): read back later it is blank, black where the context has no alpha, and a page
  // drawn on such a canvas (speedscope's white page) came back black. The helper runs before
  // the app's scripts, so their WebGL contexts keep their drawing until the next frame replaces it.
  type GetContext = (this: HTMLCanvasElement, kind: string, options?: unknown, ...rest: unknown[]) => RenderingContext | null;
  const canvasProto = HTMLCanvasElement.prototype as unknown as { getContext: GetContext };
  const getContext = canvasProto.getContext;
  canvasProto.getContext = function (kind, options, ...rest) {
    if (/^(webgl2?|experimental-webgl)$/.test(String(kind)))
      options = { ...(options && typeof options === 'object' ? options : {}), preserveDrawingBuffer: true };
    return getContext.call(this, kind, options, ...rest);
  };

  /**
   * The longest a capture may take before it answers 'failed' (ms), told to the shell in the ack:
   * 8 s, and 1 s more for every 2,000 elements of the document (the parts in view are cloned with
   * their computed styles, and a large DOM takes longer to look through), 30 s at most.
   */
  const budgetMs = () => Math.min(30000, 8000 + Math.round(document.getElementsByTagName('*').length / 2));
  /**
   * The longest an image or font of the page may take to load into the picture (ms). An image in
   * view has loaded long before the viewer comments; one still loading (a lazy image below the
   * fold) is not in the picture, but the library waits for it all the same.
   */
  const ASSET_MS = 2500;
  const libraryUrl = new URL('/__pp/capture.js', script.src).href;
  let library: Promise<typeof Screenshot> | null = null;
  /** modern-screenshot, imported once, when the first capture is asked (most viewers never comment). */
  const loadLibrary = () =>
    (library ??= (import(/* @vite-ignore */ libraryUrl) as Promise<typeof Screenshot>).catch((err: unknown) => {
      library = null;
      throw err;
    }));

  const transparent = (color: string | null | undefined) => !color || color === 'transparent' || /(?:,|\/)\s*0(?:\.0*)?\s*\)$/.test(color);

  /**
   * What the page's canvas shows where nothing is drawn, as the browser paints it: the root's
   * colour, else the body's, else the canvas colour of the page's colour scheme (white for a light
   * page). The picture is filled with it first: nothing in it stays transparent, which an image
   * viewer would show on its own background (black, with the page's dark text unreadable on it).
   */
  function canvasColor(): string {
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

  const DEFS = 'defs,clipPath,mask,pattern,marker,symbol,linearGradient,radialGradient,filter';
  /** How far outside the viewport a box still counts as in view (shadows, outlines, small overhangs). */
  const MARGIN = 64;
  const CUT = 'data-pp-cut';

  /**
   * What the picture needs of a heavy page. A page of thousands of elements (Node-RED's editor,
   * a long table) has most of them out of view or hidden, and the library clones each with its
   * computed styles: 27 s for 14,000 elements. Only the elements whose box (with what overflows
   * it) meets the viewport are cloned, with their ancestors (`keep`). Each element left out that
   * takes room in its parent's layout gets an empty, invisible stand-in of its size in the clone
   * (`cuts`, by parent: after how many kept siblings, and its box), so what is in view stays where
   * the viewer sees it: rows above the scroll, a table's other rows, a flex line's other items.
   */
  function cutPlan() {
    const keep = new Set<Element>();
    const width = innerWidth;
    const height = innerHeight;
    const keepUp = (el: Element) => {
      for (let up: Element | null = el; up && !keep.has(up); up = up.parentElement) keep.add(up);
    };
    const keepAll = (el: Element) => {
      keepUp(el);
      for (const inner of el.getElementsByTagName('*')) keep.add(inner);
    };
    for (const el of document.getElementsByTagName('*')) {
      if (keep.has(el)) continue;
      // SVG's paint servers, clips, masks and symbols draw where they are used, not where they are.
      if (el instanceof SVGElement && el.closest(DEFS)) {
        keepUp(el);
        continue;
      }
      const box = el.getBoundingClientRect();
      const w = Math.max(box.width, el.scrollWidth || 0);
      const h = Math.max(box.height, el.scrollHeight || 0);
      if (
        (w > 0 || h > 0) &&
        box.left - MARGIN < width &&
        box.top - MARGIN < height &&
        box.left + w + MARGIN > 0 &&
        box.top + h + MARGIN > 0
      )
        keepUp(el);
    }
    const cuts = new Map<Element, Cut[]>();
    for (const parent of keep) {
      // A shadow host's clone holds its shadow tree, and a slot its assigned nodes: no count of
      // children to place stand-ins by. (Shadow trees are cloned whole: see the filter.)
      if (parent.shadowRoot || parent.namespaceURI !== 'http://www.w3.org/1999/xhtml') continue;
      let kept = 0;
      let list: Cut[] | null = null;
      for (const child of parent.children) {
        if (child.localName === 'slot') {
          list = null;
          break;
        }
        if (keep.has(child)) {
          // The library leaves the page's scripts and style sheets out of the clone.
          if (child.tagName !== 'SCRIPT' && child.tagName !== 'STYLE') kept++;
          continue;
        }
        if (child.hasAttribute('data-pp-ring') || child.tagName === 'SCRIPT' || child.tagName === 'STYLE') continue;
        const style = getComputedStyle(child);
        if (style.display === 'none' || style.position === 'absolute' || style.position === 'fixed') continue;
        // Inline boxes flow with the text around them, and contents have no box of their own:
        // kept whole, as they are few where their parent is in view.
        if (style.display === 'inline' || style.display === 'contents') {
          keepAll(child);
          kept++;
          continue;
        }
        (list ??= []).push({ after: kept, tag: child.localName, box: standInStyle(child, style) });
      }
      if (list) cuts.set(parent, list);
    }
    return { keep, cuts };
  }

  /** An empty box taking the room `el` takes in its parent's layout, showing nothing. */
  function standInStyle(el: Element, style: CSSStyleDeclaration): string {
    const box = el.getBoundingClientRect();
    // Its layout size, before any transform.
    const w = el instanceof HTMLElement ? el.offsetWidth : box.width;
    const h = el instanceof HTMLElement ? el.offsetHeight : box.height;
    return [
      `display:${style.display}`,
      'box-sizing:border-box',
      `width:${w}px`,
      `height:${h}px`,
      'min-width:0',
      'min-height:0',
      'max-width:none',
      'max-height:none',
      'padding:0',
      'border:0',
      `margin:${style.margin}`,
      `float:${style.float}`,
      `clear:${style.clear}`,
      'flex:0 0 auto',
      `order:${style.order}`,
      `align-self:${style.alignSelf}`,
      `grid-row:${style.gridRow}`,
      `grid-column:${style.gridColumn}`,
      'visibility:hidden',
      'overflow:hidden',
      'list-style:none',
      'position:static',
    ].join(';');
  }

  /** The stand-ins put into the clone, by the mark its parent carries for the moment of the capture. */
  function putStandIns(root: Element, cuts: Cut[][]) {
    const marked = root.hasAttribute && root.hasAttribute(CUT) ? [root] : [];
    marked.push(...root.querySelectorAll(`[${CUT}]`));
    for (const parent of marked) {
      const list = cuts[Number(parent.getAttribute(CUT))] || [];
      parent.removeAttribute(CUT);
      const kept = [...parent.children];
      for (const cut of list) {
        const standIn = document.createElement(cut.tag);
        standIn.setAttribute('style', cut.box);
        parent.insertBefore(standIn, kept[cut.after] || null);
      }
    }
  }

  /** The visible viewport, drawn by modern-screenshot into a canvas at scale 1. */
  async function renderViewport(): Promise<HTMLCanvasElement> {
    const lib = await loadLibrary();
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
            if (!child.style || !child.style.transform) continue;
            // Its translation undone (restoreScrollPosition moved it by -x, -y); an identity left
            // over goes, since any transform would hold the page's fixed elements.
            const m = new DOMMatrix(child.style.transform);
            m.e += x;
            m.f += y;
            child.style.transform = m.isIdentity ? '' : m.toString();
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

  /** The canvas as `type`; a SecurityError when the canvas is tainted. */
  const encode = (canvas: HTMLCanvasElement, type: string, quality?: number) =>
    new Promise<Blob>((resolve, reject) => {
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no blob'))), type, quality);
    });

  /** The picture within `maxBytes`: PNG, else WebP at 0.8 then 0.6. */
  async function encodeWithin(canvas: HTMLCanvasElement, maxBytes: number): Promise<CaptureAnswer> {
    const tries: ['image/png' | 'image/webp', number?][] = [['image/png'], ['image/webp', 0.8], ['image/webp', 0.6]];
    for (const [type, quality] of tries) {
      const blob = await encode(canvas, type, quality);
      // A browser without a WebP encoder gives PNG instead: no use trying it.
      if (blob.type !== type) continue;
      if (blob.size <= maxBytes) return { ok: true, blob, imageType: type, width: canvas.width, height: canvas.height };
    }
    return { ok: false, note: 'too-large' };
  }

  async function capture(maxBytes: number): Promise<CaptureAnswer> {
    // Violations of the page's own policy while rendering: its img-src or style-src may refuse
    // what the library makes (an SVG image as a data: URL, style elements), or its script-src
    // the library itself (a policy in a <meta> after the helper's tag).
    const violations: SecurityPolicyViolationEvent[] = [];
    const onViolation = (event: SecurityPolicyViolationEvent) => violations.push(event);
    document.addEventListener('securitypolicyviolation', onViolation, true);
    // Violation events are queued: let them arrive before judging.
    const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
    const stoppedRender = () =>
      violations.some(
        (v) => /^style-src/.test(v.effectiveDirective) || (/^img-src/.test(v.effectiveDirective) && /^data\b/.test(v.blockedURI)),
      );
    try {
      const canvas = await renderViewport();
      await settle();
      // A refused SVG image draws nothing at all: the picture would be blank.
      if (stoppedRender()) return { ok: false, note: 'blocked' };
      try {
        return await encodeWithin(canvas, maxBytes);
      } catch (err) {
        return { ok: false, note: (err as { name?: unknown } | null)?.name === 'SecurityError' ? 'tainted' : 'failed' };
      }
    } catch {
      await settle();
      return { ok: false, note: violations.length ? 'blocked' : 'failed' };
    } finally {
      document.removeEventListener('securitypolicyviolation', onViolation, true);
    }
  }

  /** A capture's answer, 'failed' when it takes longer than `budget` ms: the frame never hangs the room. */
  function captureWithin(maxBytes: number, budget: number): Promise<CaptureAnswer> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<CaptureAnswer>((resolve) => (timer = setTimeout(() => resolve({ ok: false, note: 'failed' }), budget)));
    return Promise.race([capture(maxBytes).catch((): CaptureAnswer => ({ ok: false, note: 'failed' })), late]).finally(() =>
      clearTimeout(timer),
    );
  }

  window.addEventListener('message', (event) => {
    if (event.origin !== room || event.source !== window.parent) return;
    const message: Incoming = event.data || {};
    if (message.type === 'pp:point') {
      const rect = point(String(message.selector));
      send({ type: 'pp:pointed', selector: message.selector, rect });
    } else if (message.type === 'pp:clear') {
      clear();
    } else if (message.type === 'pp:capture') {
      const { nonce } = message;
      const maxBytes = Number(message.maxBytes) > 0 ? Number(message.maxBytes) : Infinity;
      const budget = budgetMs();
      send({ type: 'pp:capture-ack', nonce, budgetMs: budget });
      // The screen the viewer was on when they asked, whatever happens while the picture renders.
      const screen = screenNow();
      captureWithin(maxBytes, budget).then((answer) => send({ ...answer, type: 'pp:captured', nonce, screen }));
    }
  });

  // A story step whose page differs from this one only in the hash: the app's own page moves its
  // hash, as a link inside the app would, so a hash-routed app routes without reloading (the
  // room's setting of the frame's address cannot do it in every case). Kept apart from the
  // capture's handler above; the new screen goes out through hashchange below.
  window.addEventListener('message', (event) => {
    if (event.origin !== room || event.source !== window.parent) return;
    const message: Incoming = event.data || {};
    if (message.type !== 'pp:hash' || typeof message.hash !== 'string' || !message.hash.startsWith('#')) return;
    if (location.hash === message.hash) return;
    location.hash = message.hash;
    // An app that reads its hash only when it loads (a profiler's `#profileURL=…`) would stay
    // where it was: it is loaded again at the new address, so the step lands whatever the app does.
    if (!hashRouted()) location.reload();
  });

  // Which screen of the app the viewer is on: each new document says so when ready, and a
  // navigation inside the document (a single-page app's router, an anchor) when it happens.
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

  // Whether the app routes by its hash while it runs: a router listens for hashchange or popstate.
  // Counted from here on, so the helper's own two listeners above are not; the helper runs in the
  // page's head, before the app's scripts.
  let routerListens = false;
  const addListener = window.addEventListener;
  window.addEventListener = function (this: Window, type: string, ...rest: unknown[]) {
    if (type === 'hashchange' || type === 'popstate') routerListens = true;
    return (addListener as (...args: unknown[]) => void).apply(this, [type, ...rest]);
  } as typeof window.addEventListener;
  const hashRouted = () => routerListens || window.onhashchange != null || window.onpopstate != null;

  // A new document in the frame (a navigation inside the app) can take a ring again.
  const ready = () => {
    lastScreen = screenNow();
    send({ type: 'pp:ready', screen: lastScreen });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
