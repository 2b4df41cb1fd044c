// Comments pinned to screens: the Comment panel, the viewer's own comments with the builder's
// replies (the notice of new ones: ../reply-notice.ts), and the form that sends a comment with
// its pin and picture. Part of voice.js.
import type { ViewerComment } from '@demo-rooms/contract';
import { replyNotice } from '../reply-notice.js';
import type { ReplyOf, RoomHooks } from '../room-hooks.js';
import { base64Of } from './base64.js';
import type { FrameWatch } from './capture-ask.js';
import { refusedText, screenshotOf, sentText } from './comment-words.js';
import { askEmail } from './email-prompt.js';
import { type Pinning, pinning } from './pin-layer.js';

/** The viewer's comments, each with its reply and a New mark on a reply not seen before. */
function renderMine(list: HTMLElement, comments: ViewerComment[], shownNew: (id: string) => boolean) {
  list.textContent = '';
  for (const c of comments) {
    const li = document.createElement('li');
    li.dataset.comment = c.id;
    const body = document.createElement('p');
    body.className = 'comment-body';
    body.textContent = c.body;
    li.append(body);
    if (c.reply) {
      const reply = document.createElement('p');
      reply.className = 'comment-reply';
      reply.textContent = `${c.from || 'Reply'}: ${c.reply}`;
      if (c.replyNew || shownNew(c.id)) {
        li.classList.add('new-reply');
        const label = document.createElement('strong');
        label.className = 'new-label';
        label.textContent = 'New';
        reply.prepend(label, ' ');
      }
      li.append(reply);
    }
    list.append(li);
  }
  (list.previousElementSibling as HTMLElement).hidden = !comments.length;
}

/** Sets up the Comment panel; `openNext` opens or closes What happens next. Returns its closer. */
export function comments(room: RoomHooks, frames: FrameWatch, openNext: (open: boolean) => void): { close: () => void } {
  const voice = room.data.voice;
  const commentsPanel = document.getElementById('comments');
  const commentToggle = document.getElementById('comment-toggle')!;
  const commentForm = document.getElementById('comment-form') as HTMLFormElement | null;
  const commentBody = () => commentForm!.elements.namedItem('body') as HTMLTextAreaElement;
  const pins = pinning(
    room,
    frames.capture,
    () => {
      commentForm!.hidden = false;
      commentForm!.querySelector('.error')!.textContent = '';
      commentBody().focus();
    },
    () => {
      if (commentForm) commentForm.hidden = true;
    },
  );
  const render = () => renderMine(commentsPanel!.querySelector<HTMLElement>('.my-comments')!, voice.comments, replies.shownNew);

  function close() {
    if (!commentsPanel) return;
    commentsPanel.hidden = true;
    commentToggle.setAttribute('aria-pressed', 'false');
    document.body.classList.remove('commenting');
    pins.drop();
  }

  function startCommenting() {
    const app = room.currentApp();
    if (!app) {
      commentsPanel!.querySelector('.comment-outcome')!.textContent = 'Open one of the apps to comment on it.';
      return;
    }
    if (pins.layOver(app)) pins.focus();
  }

  // The notice of new replies opens the Comment panel; a reply that comes while it is open is seen.
  const replies = replyNotice(
    room,
    () => {
      if (commentsPanel && commentsPanel.hidden) commentToggle.click();
    },
    () => {
      if (commentsPanel && !commentsPanel.hidden) replies.seen();
      if (commentsPanel) render();
    },
  );
  if (!commentsPanel || !commentForm) return { close };
  const panel = commentsPanel;
  render();
  commentToggle.addEventListener('click', () => {
    const open = panel.hidden;
    if (!open) return close();
    openNext(false);
    panel.hidden = false;
    commentToggle.setAttribute('aria-pressed', 'true');
    document.body.classList.add('commenting');
    panel.querySelector('.comment-outcome')!.textContent = '';
    startCommenting();
    replies.seen();
  });
  panel.querySelector('.close')!.addEventListener('click', () => close());
  room.onShow(() => {
    if (!panel.hidden) startCommenting();
  });
  commentForm.querySelector('.cancel')!.addEventListener('click', () => startCommenting());
  commentForm.addEventListener('submit', (event) => {
    event.preventDefault();
    submit({ room, frames, pins, form: commentForm, panel, render, startCommenting });
  });
  return { close };
}

type Sending = {
  room: RoomHooks;
  frames: FrameWatch;
  pins: Pinning;
  form: HTMLFormElement;
  panel: HTMLElement;
  /** Draws the viewer's comments again. */
  render: () => void;
  /** A new pin layer over the app in view. */
  startCommenting: () => void;
};

/** The form sent: the comment on the pin placed, once; the viewer reads what came of it. */
async function submit({ room, frames, pins, form, panel, render, startCommenting }: Sending) {
  if (!pins.pin() || form.dataset.sending) return;
  const error = form.querySelector('.error')!;
  const field = form.elements.namedItem('body') as HTMLTextAreaElement;
  const body = field.value.trim();
  if (!body) {
    error.textContent = 'Write your comment first.';
    return;
  }
  form.dataset.sending = '1';
  const outcome = panel.querySelector('.comment-outcome')!;
  outcome.textContent = 'Sending…';
  try {
    const answer = await send(room, frames, pins, body);
    if (!answer.ok) {
      outcome.textContent = '';
      error.textContent = refusedText(answer.reply);
      return;
    }
    if (field.value.trim() === body) field.value = '';
    outcome.textContent = sentText(answer.reply);
    if (answer.reply.recorded) {
      room.data.voice.comments.push({ ...answer.reply.comment!, reply: null, repliedAt: null, from: null, replyNew: false });
      render();
    }
    if (pins.pin() === answer.sent) startCommenting();
    if (answer.reply.askEmail) askEmail(room);
  } catch {
    // The connection dropped, or anything else: the viewer is told, never left on "Sending…".
    outcome.textContent = 'Your comment did not go through. Try again.';
  } finally {
    delete form.dataset.sending;
  }
}

/** Sends the comment on the pin placed, with its picture once taken; the room's answer. */
async function send(room: RoomHooks, frames: FrameWatch, pins: Pinning, body: string) {
  // This comment's pin, whatever the viewer does while it is sent (another tab, a story
  // step, a new pin: each drops the layer's pin).
  const sent = pins.pin()!;
  const picture = await sent.picture;
  const { screenshot, screenshotNote } = await screenshotOf(picture, room.data.voice.screenshotMaxBytes, base64Of);
  const res = await room.post('comments', {
    appId: sent.app,
    screen: frames.screens[sent.app] || room.appPath(sent.app),
    body,
    position: sent.position,
    area: sent.area,
    device: sent.device,
    screenshot,
    screenshotNote,
  });
  const reply: ReplyOf<'comments'> = await res.json().catch(() => ({}));
  return { ok: res.ok, reply, sent };
}
