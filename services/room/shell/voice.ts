// The viewer's voice in the room shell (issue 14): What happens next, comments pinned to a point
// or an area of the app with a picture of what the viewer saw, the viewer's own comments with the
// builder's replies, and the one-time email prompt. shell.js hands over what it knows of the
// frames (`room`); the picture comes from the capture agent the content origin puts in the app's
// pages (services/room/content/frame-helper.ts), asked by postMessage with a nonce per comment.
// Built by Vite into one self-contained classic script (services/room/dist/voice.js,
// infra/local/room-scripts.mjs), loaded before shell.js, which calls window.ppVoice.
import type { CaptureNote, RoomMessage } from '../content/frame-messages.js';
import type { CommentBody } from '../../contract/resources/room-shell.js';
import { replyNotice } from './reply-notice.js';
import type { BodyOf, ReplyOf, RoomHooks } from './room-hooks.js';

/** Why a comment has no picture: the frame's note, or the shell's own when the frame did not answer. */
type PictureNote = CaptureNote | 'no-answer' | 'timeout';
type Picture = { blob: Blob; type: string; note?: undefined } | { note: PictureNote; blob?: undefined };
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
/** Where a comment is pinned, on which app and device, and its picture (taken as it was pinned). */
type Pin = Pick<CommentBody, 'position' | 'area' | 'device'> & { app: string; picture: Promise<Picture> };

window.ppVoice = (room: RoomHooks) => {
  const voice = room.data.voice;
  /**
   * How long the frame has to take the ask, then to send its picture: 10 s, or the budget the
   * frame says in its ack (it grows with the app's DOM) and 2 s more, 40 s at most.
   */
  const ackMs = 2000;
  const captureMs = 10000;
  const captureMaxMs = 40000;

  // --- What the frames say: the screen each app shows, and pictures asked for.
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

  /** The app's picture as the viewer saw it, or why there is none (`note`). Never waits past captureMs. */
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
      }, ackMs);
      let late = setTimeout(() => done({ note: 'timeout' }), captureMs);
      captures.set(nonce, {
        app,
        ack: (m) => {
          acked = true;
          const budget = Number(m.budgetMs);
          if (!(budget > 0)) return;
          clearTimeout(late);
          late = setTimeout(() => done({ note: 'timeout' }), Math.min(captureMaxMs, budget + 2000));
        },
        done: (m) => {
          if (typeof m.screen === 'string') screens[app] = m.screen;
          done(m.ok && m.blob ? { blob: m.blob, type: m.imageType || m.blob.type } : { note: m.note || 'failed' });
        },
      });
      frame.contentWindow!.postMessage({ type: 'pp:capture', nonce, maxBytes: voice.screenshotMaxBytes } satisfies RoomMessage, origin);
    });
  }

  async function base64Of(blob: Blob) {
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
    return btoa(text);
  }

  // --- The one-time email prompt, on the first comment or answer of a session without one.
  const emailDialog = document.getElementById('email-ask') as HTMLDialogElement | null;
  function askEmail() {
    if (!emailDialog || emailDialog.open) return;
    const dialog = emailDialog;
    const form = document.getElementById('email-form') as HTMLFormElement;
    form.onsubmit = async (event) => {
      event.preventDefault();
      const email = (form.elements.namedItem('email') as HTMLInputElement).value.trim();
      if (!email) return dialog.close();
      const res = await room.post('email', { email });
      if (res.ok) return dialog.close();
      form.querySelector('.error')!.textContent = 'Please check the address.';
    };
    form.querySelector<HTMLElement>('.skip')!.onclick = () => dialog.close();
    dialog.showModal();
  }

  // --- What happens next.
  const nextPanel = document.getElementById('next');
  const nextToggle = document.getElementById('next-toggle')!;
  function openNext(open: boolean) {
    if (!nextPanel) return;
    nextPanel.hidden = !open;
    nextToggle.setAttribute('aria-expanded', String(open));
    if (open) closeComments();
  }
  function markAnswered(kind: string) {
    const button = nextPanel!.querySelector(`.step-answer[data-kind="${kind}"]`);
    if (!button) return;
    button.classList.add('answered');
    button.setAttribute('aria-pressed', 'true');
    const form = nextPanel!.querySelector<HTMLElement>(`.step-form[data-kind="${kind}"]`);
    if (form) form.hidden = true;
  }
  const sending = new Set<string>();
  async function answer(kind: BodyOf<'answer'>['step'], detail: Record<string, string> | null) {
    // One answer per step per visit: the server holds to it too; this only saves a request.
    if (sending.has(kind)) return;
    sending.add(kind);
    const outcome = nextPanel!.querySelector('.next-outcome')!;
    try {
      const res = await room.post('answer', detail ? { step: kind, detail } : { step: kind });
      const body: ReplyOf<'answer'> = await res.json().catch(() => ({}));
      if (!res.ok) {
        outcome.textContent = (body.issues && body.issues[0] && body.issues[0].message) || 'That did not go through. Try again.';
        return;
      }
      markAnswered(kind);
      outcome.textContent = body.recorded
        ? `Thank you. ${room.data.sender || 'The sender'} will see your answer.`
        : 'Preview: not recorded.';
      if (body.askEmail) askEmail();
    } finally {
      sending.delete(kind);
    }
  }
  if (nextPanel) {
    nextToggle.addEventListener('click', () => openNext(nextPanel.hidden));
    nextPanel.querySelector('.close')!.addEventListener('click', () => openNext(false));
    for (const kind of voice.answered) markAnswered(kind);
    for (const button of nextPanel.querySelectorAll<HTMLElement>('.step-answer')) {
      button.addEventListener('click', () => {
        const kind = button.dataset.kind as BodyOf<'answer'>['step'];
        const form = nextPanel.querySelector<HTMLElement>(`.step-form[data-kind="${kind}"]`);
        if (form) {
          form.hidden = !form.hidden;
          if (!form.hidden) form.querySelector<HTMLElement>('textarea, input')!.focus();
          return;
        }
        // The booking page opens at once, in the click, so no popup blocker stops it.
        if (kind === 'meeting' && button.dataset.url) window.open(button.dataset.url, '_blank', 'noopener');
        answer(kind, null);
      });
    }
    for (const form of nextPanel.querySelectorAll<HTMLFormElement>('.step-form')) {
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const fields = Array.from(form.elements) as HTMLInputElement[];
        const detail = Object.fromEntries(fields.filter((e) => e.name).map((e) => [e.name, e.value.trim()]));
        answer(form.dataset.kind as BodyOf<'answer'>['step'], detail);
      });
    }
  }

  // --- Comments pinned to screens.
  const commentsPanel = document.getElementById('comments');
  const commentToggle = document.getElementById('comment-toggle')!;
  const commentForm = document.getElementById('comment-form') as HTMLFormElement | null;
  let layer: HTMLElement | null = null;
  let pin: Pin | null = null;

  function renderMine() {
    const list = commentsPanel!.querySelector<HTMLElement>('.my-comments')!;
    list.textContent = '';
    for (const c of voice.comments) {
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
        if (c.replyNew || replies.shownNew(c.id)) {
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
    (list.previousElementSibling as HTMLElement).hidden = !voice.comments.length;
  }

  function closeComments() {
    if (!commentsPanel) return;
    commentsPanel.hidden = true;
    commentToggle.setAttribute('aria-pressed', 'false');
    document.body.classList.remove('commenting');
    dropPin();
  }
  function dropPin() {
    if (layer) layer.remove();
    layer = null;
    pin = null;
    if (commentForm) commentForm.hidden = true;
  }

  /** Which hold each frame is under: only the newest one lets go (a new pin while a picture renders). */
  const holds = new WeakMap<HTMLElement, object>();
  /**
   * Keeps the app's frame at its size until its picture is taken, and returns what lets it go.
   * The point is a fraction of the area the viewer tapped in; on a phone the comment sheet below
   * the app grows as the pin opens the form, and the app's visible area would shrink under the
   * capture, giving a picture of a smaller area than the point's (issue 47, item 3: the pin was
   * drawn on a line above the one tapped). Meanwhile the frame's foot is hidden under the sheet.
   */
  function holdSize(box: HTMLElement): () => void {
    const token = {};
    holds.set(box, token);
    const r = box.getBoundingClientRect();
    Object.assign(box.style, { width: `${r.width}px`, height: `${r.height}px` });
    box.parentElement!.classList.add('holding');
    return () => {
      if (holds.get(box) !== token) return;
      holds.delete(box);
      Object.assign(box.style, { width: '', height: '' });
      box.parentElement!.classList.remove('holding');
    };
  }

  /** A layer over the app's frame that takes a click (a point) or a drag (an area). */
  function pinLayer(app: string) {
    dropPin();
    const box = room.frameOf(app) && room.frameOf(app)!.parentElement;
    if (!box) return;
    layer = document.createElement('div');
    layer.className = 'pin-layer';
    layer.setAttribute('aria-label', 'Click or drag on the app to pin your comment');
    const mark = document.createElement('div');
    mark.className = 'pin-mark';
    layer.append(mark);
    box.append(layer);
    let start: { x: number; y: number } | null = null;
    const at = (event: PointerEvent) => {
      const r = layer!.getBoundingClientRect();
      return {
        x: Math.min(1, Math.max(0, (event.clientX - r.left) / r.width)),
        y: Math.min(1, Math.max(0, (event.clientY - r.top) / r.height)),
      };
    };
    // In pixels from the frame's top left, not fractions: when the frame is shorter later (a
    // phone's comment sheet grows below it), the mark stays on what the viewer tapped.
    const draw = (a: { x: number; y: number }, b: { x: number; y: number }) => {
      const r = layer!.getBoundingClientRect();
      Object.assign(mark.style, {
        left: `${Math.min(a.x, b.x) * r.width}px`,
        top: `${Math.min(a.y, b.y) * r.height}px`,
        width: `${Math.abs(a.x - b.x) * r.width}px`,
        height: `${Math.abs(a.y - b.y) * r.height}px`,
      });
    };
    layer.addEventListener('pointerdown', (event) => {
      if (pin) return;
      start = at(event);
      layer!.setPointerCapture(event.pointerId);
      mark.className = 'pin-mark';
      draw(start, start);
    });
    layer.addEventListener('pointermove', (event) => {
      if (start && !pin) draw(start, at(event));
    });
    // From the keyboard: Enter or Space pins the comment to the middle of the screen.
    layer.tabIndex = 0;
    layer.setAttribute('role', 'button');
    layer.addEventListener('keydown', (event) => {
      if (pin || (event.key !== 'Enter' && event.key !== ' ')) return;
      event.preventDefault();
      start = { x: 0.5, y: 0.5 };
      place(start);
    });
    layer.addEventListener('pointerup', (event) => {
      if (!start || pin) return;
      place(at(event));
    });
    function place(end: { x: number; y: number }) {
      const from = start!;
      const r = layer!.getBoundingClientRect();
      // A move of a few pixels is a click, not a drag.
      const dragged = Math.abs(end.x - from.x) * r.width > 6 || Math.abs(end.y - from.y) * r.height > 6;
      const round = (n: number) => Math.round(n * 10000) / 10000;
      const spot: Pick<Pin, 'position' | 'area'> = dragged
        ? {
            position: null,
            area: {
              x: round(Math.min(from.x, end.x)),
              y: round(Math.min(from.y, end.y)),
              width: round(Math.abs(end.x - from.x)),
              height: round(Math.abs(end.y - from.y)),
            },
          }
        : { position: { x: round(from.x), y: round(from.y) }, area: null };
      mark.className = dragged ? 'pin-mark area' : 'pin-mark point';
      if (!dragged) draw(from, from);
      start = null;
      // The picture is taken now, as the viewer saw the screen they pinned; the form waits for it.
      const device = (box!.className.replace(/^frame frame-/, '') || 'none') as Pin['device'];
      const release = holdSize(box!);
      pin = { ...spot, app, device, picture: capture(app).finally(release) };
      commentForm!.hidden = false;
      commentForm!.querySelector('.error')!.textContent = '';
      commentBody().focus();
    }
  }

  function startCommenting() {
    const app = room.currentApp();
    if (!app) {
      commentsPanel!.querySelector('.comment-outcome')!.textContent = 'Open one of the apps to comment on it.';
      return;
    }
    pinLayer(app);
    if (layer) layer.focus({ preventScroll: true });
  }

  const commentBody = () => commentForm!.elements.namedItem('body') as HTMLTextAreaElement;
  // The notice of new replies opens the Comment panel; a reply that comes while it is open is seen.
  const replies = replyNotice(
    room,
    () => {
      if (commentsPanel && commentsPanel.hidden) commentToggle.click();
    },
    () => {
      if (commentsPanel && !commentsPanel.hidden) replies.seen();
      if (commentsPanel) renderMine();
    },
  );
  if (commentsPanel && commentForm) {
    renderMine();
    commentToggle.addEventListener('click', () => {
      const open = commentsPanel.hidden;
      if (!open) return closeComments();
      openNext(false);
      commentsPanel.hidden = false;
      commentToggle.setAttribute('aria-pressed', 'true');
      document.body.classList.add('commenting');
      commentsPanel.querySelector('.comment-outcome')!.textContent = '';
      startCommenting();
      replies.seen();
    });
    commentsPanel.querySelector('.close')!.addEventListener('click', () => closeComments());
    room.onShow(() => {
      if (!commentsPanel.hidden) startCommenting();
    });
    commentForm.querySelector('.cancel')!.addEventListener('click', () => startCommenting());
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
    commentForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!pin || commentForm.dataset.sending) return;
      const error = commentForm.querySelector('.error')!;
      const body = commentBody().value.trim();
      if (!body) {
        error.textContent = 'Write your comment first.';
        return;
      }
      // This comment's pin, whatever the viewer does while it is sent (another tab, a story
      // step, a new pin: each drops the layer's pin).
      const sent = pin;
      commentForm.dataset.sending = '1';
      const outcome = commentsPanel.querySelector('.comment-outcome')!;
      outcome.textContent = 'Sending…';
      try {
        const picture = await sent.picture;
        let screenshot: CommentBody['screenshot'] = null;
        let screenshotNote: CommentBody['screenshotNote'] = picture.note || null;
        if (picture.blob) {
          if (picture.blob.size > voice.screenshotMaxBytes) screenshotNote = 'too-large';
          else screenshot = { type: picture.type as 'image/png' | 'image/webp', data: await base64Of(picture.blob) };
        }
        const res = await room.post('comments', {
          appId: sent.app,
          screen: screens[sent.app] || room.appPath(sent.app),
          body,
          position: sent.position,
          area: sent.area,
          device: sent.device,
          screenshot,
          screenshotNote,
        });
        const answer: ReplyOf<'comments'> = await res.json().catch(() => ({}));
        if (!res.ok) {
          outcome.textContent = '';
          error.textContent =
            (answer.issues && answer.issues[0] && answer.issues[0].message) ||
            answer.detail ||
            answer.error ||
            'Your comment did not go through.';
          return;
        }
        if (commentBody().value.trim() === body) commentBody().value = '';
        const note = answer.comment && answer.comment.screenshotNote;
        outcome.textContent = !answer.recorded
          ? 'Preview: not recorded.'
          : note && withoutPicture[note]
            ? `Sent without a picture: ${withoutPicture[note]}. Thank you.`
            : 'Sent. Thank you.';
        if (answer.recorded) {
          voice.comments.push({ ...answer.comment!, reply: null, repliedAt: null, from: null, replyNew: false });
          renderMine();
        }
        if (pin === sent) startCommenting();
        if (answer.askEmail) askEmail();
      } catch {
        // The connection dropped, or anything else: the viewer is told, never left on "Sending…".
        outcome.textContent = 'Your comment did not go through. Try again.';
      } finally {
        delete commentForm.dataset.sending;
      }
    });
  }
};
