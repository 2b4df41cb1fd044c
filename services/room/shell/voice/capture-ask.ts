// Asking an app's frame for a picture of what the viewer sees (the capture agent the content
// origin puts in the app's pages, services/room/content/frame-helper.ts), by postMessage with a
// nonce per comment, and the screen each app's page says it is on. Part of voice.js.
import type { CaptureNote, RoomMessage } from '../../content/frame-messages.js';
import type { RoomHooks } from '../room-hooks.js';

/** Why a comment has no picture: the frame's note, or the shell's own when the frame did not answer. */
export type PictureNote = CaptureNote | 'no-answer' | 'timeout';
export type Picture = { blob: Blob; type: string; note?: undefined } | { note: PictureNote; blob?: undefined };
/** A frame's answer to a capture, as it arrives: each field is checked where it is read. */
type CaptureMessage = {
  type?: unknown;
  nonce?: unknown;
  budgetMs?: unknown;
  screen?: unknown;
  ok?: unknown;
  blob?: Blob;
  imageType?: string;
  note?: PictureNote;
};

/**
 * How long the frame has to take the ask, then to send its picture: 10 s, or the budget the
 * frame says in its ack (it grows with the app's DOM) and 2 s more, 40 s at most.
 */
export const ACK_MS = 2000;
export const CAPTURE_MS = 10000;
const CAPTURE_MAX_MS = 40000;

/** How long the picture may still take once the frame acked with `budgetMs`; null: keep the 10 s. */
export function pictureDeadline(budgetMs: unknown): number | null {
  const budget = Number(budgetMs);
  if (!(budget > 0)) return null;
  return Math.min(CAPTURE_MAX_MS, budget + 2000);
}

/** The picture a frame's `pp:captured` gives, or why there is none. */
export function pictureOf(m: Pick<CaptureMessage, 'ok' | 'blob' | 'imageType' | 'note'>): Picture {
  return m.ok && m.blob ? { blob: m.blob, type: m.imageType || m.blob.type } : { note: m.note || 'failed' };
}

export type FrameWatch = {
  /** The screen each app's page last said it is on. */
  screens: Record<string, string>;
  /** The app's picture as the viewer saw it, or why there is none (`note`). Never waits past CAPTURE_MS unless the frame says. */
  capture: (app: string) => Promise<Picture>;
};

/** Listens to the app frames: their screens, and the answers to the pictures asked. */
export function watchFrames(room: RoomHooks): FrameWatch {
  const screens: Record<string, string> = {};
  const readySinceLoad: Record<string, boolean> = {};
  const captures = new Map<unknown, { app: string; ack: (m: CaptureMessage) => void; done: (m: CaptureMessage) => void }>();
  window.addEventListener('message', (event) => {
    const app = room.appOfWindow(event.source, event.origin);
    if (!app) return;
    const message: CaptureMessage = event.data || {};
    if ((message.type === 'pp:ready' || message.type === 'pp:screen') && typeof message.screen === 'string') {
      screens[app] = message.screen;
      readySinceLoad[app] = true;
    }
    const waiting = message.nonce ? captures.get(message.nonce) : undefined;
    if (!waiting || waiting.app !== app) return;
    if (message.type === 'pp:capture-ack') waiting.ack(message);
    if (message.type === 'pp:captured') waiting.done(message);
  });
  // A page says where it is as it gets ready, before its load event: a page that loaded without
  // saying so (no agent in it) leaves no screen behind from the page before.
  room.onFrameLoad((app) => {
    if (!readySinceLoad[app]) delete screens[app];
    readySinceLoad[app] = false;
  });

  function capture(app: string): Promise<Picture> {
    const frame = room.frameOf(app);
    const origin = room.originOf(app);
    if (!frame || !frame.contentWindow || !origin) return Promise.resolve({ note: 'no-answer' });
    const nonce = crypto.randomUUID();
    return new Promise<Picture>((resolve) => {
      let acked = false;
      const done = (answer: Picture) => {
        clearTimeout(noAck);
        clearTimeout(late);
        captures.delete(nonce);
        resolve(answer);
      };
      const noAck = setTimeout(() => {
        if (!acked) done({ note: 'no-answer' });
      }, ACK_MS);
      let late = setTimeout(() => done({ note: 'timeout' }), CAPTURE_MS);
      captures.set(nonce, {
        app,
        ack: (m) => {
          acked = true;
          const deadline = pictureDeadline(m.budgetMs);
          if (deadline === null) return;
          clearTimeout(late);
          late = setTimeout(() => done({ note: 'timeout' }), deadline);
        },
        done: (m) => {
          if (typeof m.screen === 'string') screens[app] = m.screen;
          done(pictureOf(m));
        },
      });
      const ask: RoomMessage = { type: 'pp:capture', nonce, maxBytes: room.data.voice.screenshotMaxBytes };
      frame.contentWindow!.postMessage(ask, origin);
    });
  }

  return { screens, capture };
}
