// What the frame helper (frame-helper.ts, in a build's pages) and the room shell (shell/shell.ts,
// shell/voice.ts) say to each other by postMessage; frame-helper.ts describes when each goes.
// Types only: both sides are browser scripts, bundled apart, and a message is never trusted to
// be what its type says (each side checks the fields it reads).

/** Why a capture gave no picture. */
export type CaptureNote = 'too-large' | 'tainted' | 'blocked' | 'failed';

/** A box in the frame's viewport (CSS pixels). */
export type FrameRect = { top: number; left: number; width: number; height: number };

/** What a capture gave: the picture, or why there is none. */
export type CaptureAnswer =
  | { ok: true; blob: Blob; imageType: 'image/png' | 'image/webp'; width: number; height: number }
  | { ok: false; note: CaptureNote };

/** frame → room */
export type FrameMessage =
  | { type: 'pp:ready'; screen: string }
  | { type: 'pp:screen'; screen: string }
  | { type: 'pp:pointed'; selector: unknown; rect: FrameRect | null }
  | { type: 'pp:capture-ack'; nonce: unknown; budgetMs: number }
  | (CaptureAnswer & { type: 'pp:captured'; nonce: unknown; screen: string });

/** room → frame */
export type RoomMessage =
  | { type: 'pp:point'; selector: string }
  | { type: 'pp:clear' }
  | { type: 'pp:hash'; hash: string }
  | { type: 'pp:capture'; nonce: string; maxBytes: number };
