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
// run time but the screenshot library, by URL. Its parts, in frame-helper/:
//   ring.ts             the ring a story step asks for
//   room-messages.ts    what the room asks (a ring, a picture, a hash)
//   screen-watch.ts     the screen the viewer is on, and whether the app routes by its hash
//   capture.ts          a picture within the budget: render-viewport.ts draws it (cut-plan.ts
//                       leaves out what is out of view, canvas-color.ts its background),
//                       encode.ts makes its bytes, capture-rules.ts the rules that need no page
//   webgl-keep.ts       WebGL canvases keep their drawing, to be read
import type { FrameMessage } from './frame-messages.js';
import { answerRoom, moveHashOnAsk } from './frame-helper/room-messages.js';
import { watchRouting, watchScreen } from './frame-helper/screen-watch.js';
import { keepWebglDrawing } from './frame-helper/webgl-keep.js';

/** Runs the helper in a frame the room's script tag (`data-room`, its origin) put it in, once a document. */
function start(script: HTMLScriptElement | null) {
  const room = script && script.dataset.room;
  if (!script || !room || window.parent === window) return;
  // Once a document, even if a page carries the tag twice (an app that copied it into its own
  // HTML, a fragment put in by script): a second helper would answer every message again.
  const running = Symbol.for('pp.frame-helper');
  if ((window as unknown as Record<symbol, unknown>)[running]) return;
  Object.defineProperty(window, running, { value: true });
  const send = (message: FrameMessage) => window.parent.postMessage(message, room);
  keepWebglDrawing();
  const screen = watchScreen(send);
  // From here on, a listener for hashchange or popstate is the app's router (the helper's own,
  // just above, are not counted).
  const hashRouted = watchRouting();
  answerRoom({ room, send, libraryUrl: new URL('/__pp/capture.js', script.src).href });
  moveHashOnAsk(room, hashRouted);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', screen.ready);
  else screen.ready();
}

start(document.currentScript as HTMLScriptElement | null);
