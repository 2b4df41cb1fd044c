// What the comment panel says, and the picture as a comment carries it. Pure. Part of voice.js
// (comments.ts).
import type { CommentBody } from '@demo-rooms/contract';
import type { ReplyOf } from '../room-hooks.js';
import type { Picture } from './capture-ask.js';

// Why a comment went without its picture, in the viewer's words (the note is stored with it).
const withoutPicture: Record<string, string> = {
  'no-answer': 'the app did not answer',
  timeout: 'the app did not answer in time',
  blocked: "the app's own security policy stops it",
  tainted: 'the app shows images from elsewhere that cannot be copied',
  'too-large': 'it was too large',
  failed: 'it could not be made',
  blank: 'it came out blank',
};

/** What the panel says once a comment went: thanks, with why it went without a picture. */
export function sentText(answer: ReplyOf<'comments'>): string {
  const note = answer.comment && answer.comment.screenshotNote;
  return !answer.recorded
    ? 'Preview: not recorded.'
    : note && withoutPicture[note]
      ? `Sent without a picture: ${withoutPicture[note]}. Thank you.`
      : 'Sent. Thank you.';
}

/** A refused comment's words: its first issue, its detail or error, else that it did not go. */
export const refusedText = (answer: ReplyOf<'comments'>) =>
  (answer.issues && answer.issues[0] && answer.issues[0].message) || answer.detail || answer.error || 'Your comment did not go through.';

type Screenshot = Pick<CommentBody, 'screenshot' | 'screenshotNote'>;

/**
 * The picture as the comment carries it (base64 by `encode`), or why there is none: a picture
 * over `maxBytes` goes as 'too-large'.
 */
export async function screenshotOf(picture: Picture, maxBytes: number, encode: (blob: Blob) => Promise<string>): Promise<Screenshot> {
  let screenshot: CommentBody['screenshot'] = null;
  let screenshotNote: CommentBody['screenshotNote'] = picture.note || null;
  if (picture.blob) {
    if (picture.blob.size > maxBytes) screenshotNote = 'too-large';
    else screenshot = { type: picture.type as 'image/png' | 'image/webp', data: await encode(picture.blob) };
  }
  return { screenshot, screenshotNote };
}
