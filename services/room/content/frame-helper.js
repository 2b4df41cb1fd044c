// The room's helper inside a build's pages: the content origin adds it to every HTML document it
// serves (static-files.ts, and a viewer's copy's pages in copy-forward.ts), so the room's shell
// can ring the element a story step points at, know which screen the viewer is on, and get a
// picture of what the viewer sees when they pin a comment. It listens to the room's own window
// only (the origin the script tag names, and the parent frame), and touches nothing else of the
// page but the ring it draws.
//
// Messages (postMessage, the room's origin only):
//   frame → room  {type:'pp:ready', screen}          each document, once parsed
//                 {type:'pp:screen', screen}         a navigation inside the document (history, hash)
//   room → frame  {type:'pp:point', selector}  →  {type:'pp:pointed', selector, rect|null}
//                 {type:'pp:clear'}
//                 {type:'pp:hash', hash}         a story step that moves only the hash (below)
//                 {type:'pp:capture', nonce, maxBytes}
//                     →  {type:'pp:capture-ack', nonce}                            at once
//                     →  {type:'pp:captured', nonce, ok:true, blob, imageType, width, height, screen}
//                      | {type:'pp:captured', nonce, ok:false, note, screen}
//   screen is location.pathname + search + hash. A picture is the visible viewport at scale 1
//   (width × height = the frame's CSS viewport), PNG, or WebP when the PNG passes maxBytes;
//   imageType ('image/png' or 'image/webp', also the blob's own type) is not called `type`,
//   which names the message.
//   note: 'too-large' (still over maxBytes as WebP), 'tainted' (the canvas could not be read),
//   'blocked' (the page's own Content-Security-Policy stopped the render), 'failed' (anything
//   else, or no picture within CAPTURE_MS).
(() => {
  const script = document.currentScript;
  const room = script && script.dataset.room;
  if (!room || window.parent === window) return;
  const send = (message) => window.parent.postMessage(message, room);
  const screenNow = () => location.pathname + location.search + location.hash;

  let ring = null;
  const clear = () => {
    if (ring) ring.remove();
    ring = null;
  };

  /** Rings the first element `selector` finds; its box in the frame's viewport, or null. */
  function point(selector) {
    clear();
    let el = null;
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
      position: 'absolute', left: `${box.left + scrollX - 6}px`, top: `${box.top + scrollY - 6}px`,
      width: `${box.width + 12}px`, height: `${box.height + 12}px`, boxSizing: 'border-box',
      border: '3px solid #f59f00', borderRadius: '8px', boxShadow: '0 0 0 4px rgba(245, 159, 0, .3)',
      pointerEvents: 'none', zIndex: '2147483647', margin: '0', padding: '0',
    });
    document.documentElement.appendChild(ring);
    return { top: box.top, left: box.left, width: box.width, height: box.height };
  }

  // --- Comment screenshots ---

  /** The longest a capture may take before it answers 'failed' (ms); the shell waits a little longer. */
  const CAPTURE_MS = 8000;
  /**
   * The longest an image or font of the page may take to load into the picture (ms). An image in
   * view has loaded long before the viewer comments; one still loading (a lazy image below the
   * fold) is not in the picture, but the library waits for it all the same.
   */
  const ASSET_MS = 2500;
  const libraryUrl = new URL('/__pp/capture.js', script.src).href;
  let library = null;
  /** modern-screenshot, imported once, when the first capture is asked (most viewers never comment). */
  const loadLibrary = () => (library ??= import(libraryUrl).catch((err) => {
    library = null;
    throw err;
  }));

  const transparent = (color) => !color || color === 'transparent' || /(?:,|\/)\s*0(?:\.0*)?\s*\)$/.test(color);

  /** What the page's canvas shows where nothing is drawn: the root's colour, else the body's, else white. */
  function canvasColor() {
    const root = getComputedStyle(document.documentElement).backgroundColor;
    if (!transparent(root)) return root;
    const body = document.body && getComputedStyle(document.body).backgroundColor;
    return transparent(body) ? '#ffffff' : body;
  }

  /** The visible viewport, drawn by modern-screenshot into a canvas at scale 1. */
  async function renderViewport() {
    const lib = await loadLibrary();
    const x = scrollX;
    const y = scrollY;
    const html = document.documentElement;
    const scroller = document.scrollingElement || html;
    return lib.domToCanvas(html, {
      width: innerWidth,
      height: innerHeight,
      scale: 1,
      backgroundColor: canvasColor(),
      // The whole document, moved up and left by the scroll: the picture's box is the viewport.
      // `top`, not a transform, so position:fixed elements stay where the viewer sees them.
      style: { position: 'relative', top: `${-y}px`, left: `${-x}px`, height: `${Math.max(html.scrollHeight, innerHeight + y)}px` },
      // Scrolled boxes inside the page show what they show the viewer...
      features: { restoreScrollPosition: true },
      // ...but the page's own scroll is already in `top`: the library's transform for it goes.
      onCloneNode: (root) => {
        if (!x && !y) return;
        const scrolled = scroller === html ? root : [...root.children].find((c) => c.localName === 'body');
        for (const child of scrolled ? scrolled.children : []) {
          if (!child.style || !child.style.transform) continue;
          // Its translation undone (restoreScrollPosition moved it by -x, -y); an identity left
          // over goes, since any transform would hold the page's fixed elements.
          const m = new DOMMatrix(child.style.transform);
          m.e += x;
          m.f += y;
          child.style.transform = m.isIdentity ? '' : m.toString();
        }
      },
      filter: (node) => !(node.nodeType === 1 && node.hasAttribute('data-pp-ring')),
      timeout: ASSET_MS,
    });
  }

  /** The canvas as `type`; a SecurityError when the canvas is tainted. */
  const encode = (canvas, type, quality) => new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no blob'))), type, quality);
  });

  /** The picture within `maxBytes`: PNG, else WebP at 0.8 then 0.6. */
  async function encodeWithin(canvas, maxBytes) {
    for (const [type, quality] of [['image/png'], ['image/webp', 0.8], ['image/webp', 0.6]]) {
      const blob = await encode(canvas, type, quality);
      // A browser without a WebP encoder gives PNG instead: no use trying it.
      if (blob.type !== type) continue;
      if (blob.size <= maxBytes) return { ok: true, blob, imageType: type, width: canvas.width, height: canvas.height };
    }
    return { ok: false, note: 'too-large' };
  }

  async function capture(maxBytes) {
    // Violations of the page's own policy while rendering: its img-src or style-src may refuse
    // what the library makes (an SVG image as a data: URL, style elements), or its script-src
    // the library itself (a policy in a <meta> after the helper's tag).
    const violations = [];
    const onViolation = (event) => violations.push(event);
    document.addEventListener('securitypolicyviolation', onViolation, true);
    // Violation events are queued: let them arrive before judging.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    const stoppedRender = () => violations.some((v) => /^style-src/.test(v.effectiveDirective) || (/^img-src/.test(v.effectiveDirective) && /^data\b/.test(v.blockedURI)));
    try {
      const canvas = await renderViewport();
      await settle();
      // A refused SVG image draws nothing at all: the picture would be blank.
      if (stoppedRender()) return { ok: false, note: 'blocked' };
      try {
        return await encodeWithin(canvas, maxBytes);
      } catch (err) {
        return { ok: false, note: err && err.name === 'SecurityError' ? 'tainted' : 'failed' };
      }
    } catch {
      await settle();
      return { ok: false, note: violations.length ? 'blocked' : 'failed' };
    } finally {
      document.removeEventListener('securitypolicyviolation', onViolation, true);
    }
  }

  /** A capture's answer, 'failed' when it takes longer than CAPTURE_MS: the frame never hangs the room. */
  function captureWithin(maxBytes) {
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(() => resolve({ ok: false, note: 'failed' }), CAPTURE_MS)));
    return Promise.race([capture(maxBytes).catch(() => ({ ok: false, note: 'failed' })), late]).finally(() => clearTimeout(timer));
  }

  window.addEventListener('message', (event) => {
    if (event.origin !== room || event.source !== window.parent) return;
    const message = event.data || {};
    if (message.type === 'pp:point') {
      const rect = point(String(message.selector));
      send({ type: 'pp:pointed', selector: message.selector, rect });
    } else if (message.type === 'pp:clear') {
      clear();
    } else if (message.type === 'pp:capture') {
      const { nonce } = message;
      const maxBytes = Number(message.maxBytes) > 0 ? Number(message.maxBytes) : Infinity;
      send({ type: 'pp:capture-ack', nonce });
      // The screen the viewer was on when they asked, whatever happens while the picture renders.
      const screen = screenNow();
      captureWithin(maxBytes).then((answer) => send({ ...answer, type: 'pp:captured', nonce, screen }));
    }
  });

  // A story step whose page differs from this one only in the hash: the app's own page moves its
  // hash, as a link inside the app would, so a hash-routed app routes without reloading (the
  // room's setting of the frame's address cannot do it in every case). Kept apart from the
  // capture's handler above; the new screen goes out through hashchange below.
  window.addEventListener('message', (event) => {
    if (event.origin !== room || event.source !== window.parent) return;
    const message = event.data || {};
    if (message.type !== 'pp:hash' || typeof message.hash !== 'string' || !message.hash.startsWith('#')) return;
    if (location.hash !== message.hash) location.hash = message.hash;
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
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name];
    if (typeof original !== 'function') continue;
    history[name] = function (...args) {
      const result = original.apply(this, args);
      moved();
      return result;
    };
  }
  window.addEventListener('popstate', moved);
  window.addEventListener('hashchange', moved);

  // A new document in the frame (a navigation inside the app) can take a ring again.
  const ready = () => {
    lastScreen = screenNow();
    send({ type: 'pp:ready', screen: lastScreen });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
