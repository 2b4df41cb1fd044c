// The viewer's voice in the room shell (issue 14): What happens next, comments pinned to a point
// or an area of the app with a picture of what the viewer saw, the viewer's own comments with the
// builder's replies, and the one-time email prompt. shell.js hands over what it knows of the
// frames (`room`); the picture comes from the capture agent the content origin puts in the app's
// pages (services/room/content/frame-helper.ts), asked by postMessage with a nonce per comment.
// Built by Vite into one self-contained classic script (services/room/dist/voice.js,
// infra/local/room-scripts.mjs), loaded before shell.js, which calls window.ppVoice.
// Its parts, in voice/:
//   capture-ask.ts   the frames' screens and the pictures asked of them (the capture's timing)
//   next-steps.ts    What happens next; email-prompt.ts the one-time email prompt
//   comments.ts      the Comment panel and form; pin-layer.ts the pin (pin-spot.ts its pure
//                    rules), comment-words.ts what the panel says, base64.ts the picture's bytes
import type { RoomHooks } from './room-hooks.js';
import { watchFrames } from './voice/capture-ask.js';
import { comments } from './voice/comments.js';
import { nextSteps } from './voice/next-steps.js';

window.ppVoice = (room: RoomHooks) => {
  const frames = watchFrames(room);
  // Each panel closes the other as it opens.
  let closeComments = () => {};
  const next = nextSteps(room, () => closeComments());
  closeComments = comments(room, frames, next.open).close;
};
