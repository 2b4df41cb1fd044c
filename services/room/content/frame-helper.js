// The room's helper inside a build's pages: the content origin adds it to every HTML document it
// serves (static-files.ts), so the room's shell can ring the element a story step points at.
// It listens to the room's own window only (the origin the script tag names, and the parent
// frame), and touches nothing else of the page. The comment screenshots will come through here.
(() => {
  const script = document.currentScript;
  const room = script && script.dataset.room;
  if (!room || window.parent === window) return;
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

  window.addEventListener('message', (event) => {
    if (event.origin !== room || event.source !== window.parent) return;
    const message = event.data || {};
    if (message.type === 'pp:point') {
      const rect = point(String(message.selector));
      window.parent.postMessage({ type: 'pp:pointed', selector: message.selector, rect }, room);
    } else if (message.type === 'pp:clear') {
      clear();
    }
  });
  // A new document in the frame (a navigation inside the app) can take a ring again.
  const ready = () => window.parent.postMessage({ type: 'pp:ready' }, room);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
