// What the room asks of the page (postMessage, from the room's origin and the parent frame only):
// a ring (pp:point, pp:clear), a picture (pp:capture), and a hash (pp:hash). Part of
// frame-helper.js.
import type { FrameMessage } from '../frame-messages.js';
import { budgetMs, maxBytesOf } from './capture-rules.js';
import { captureWithin } from './capture.js';
import { clear, point } from './ring.js';
import { screenNow } from './screen-watch.js';

/** A room message as it arrives: any value; each field is checked where it is read. */
type Incoming = { type?: unknown; selector?: unknown; nonce?: unknown; maxBytes?: unknown; hash?: unknown };

type Helper = { room: string; send: (message: FrameMessage) => void; libraryUrl: string };

/** The room's message, or null when it came from anywhere else. */
const fromRoom = (room: string, event: MessageEvent): Incoming | null =>
  event.origin !== room || event.source !== window.parent ? null : event.data || {};

/** The ring and the picture. */
export function answerRoom({ room, send, libraryUrl }: Helper) {
  window.addEventListener('message', (event) => {
    const message = fromRoom(room, event);
    if (!message) return;
    if (message.type === 'pp:point') {
      const rect = point(String(message.selector));
      send({ type: 'pp:pointed', selector: message.selector, rect });
    } else if (message.type === 'pp:clear') {
      clear();
    } else if (message.type === 'pp:capture') {
      const { nonce } = message;
      const maxBytes = maxBytesOf(message.maxBytes);
      const budget = budgetMs(document.getElementsByTagName('*').length);
      send({ type: 'pp:capture-ack', nonce, budgetMs: budget });
      // The screen the viewer was on when they asked, whatever happens while the picture renders.
      const screen = screenNow();
      captureWithin(libraryUrl, maxBytes, budget).then((answer) => send({ ...answer, type: 'pp:captured', nonce, screen }));
    }
  });
}

/** Whether `hash` is one a step may move the page to. */
export const isHash = (hash: unknown): hash is string => typeof hash === 'string' && hash.startsWith('#');

// A story step whose page differs from this one only in the hash: the app's own page moves its
// hash, as a link inside the app would, so a hash-routed app routes without reloading (the
// room's setting of the frame's address cannot do it in every case). Kept apart from the
// capture's handler above; the new screen goes out through hashchange (screen-watch.ts).
export function moveHashOnAsk(room: string, hashRouted: () => boolean) {
  window.addEventListener('message', (event) => {
    const message = fromRoom(room, event);
    if (!message || message.type !== 'pp:hash' || !isHash(message.hash)) return;
    if (location.hash === message.hash) return;
    location.hash = message.hash;
    // An app that reads its hash only when it loads (a profiler's `#profileURL=…`) would stay
    // where it was: it is loaded again at the new address, so the step lands whatever the app does.
    if (!hashRouted()) location.reload();
  });
}
