// The builder's replies, where the viewer sees them without opening Comment (issue 47, item 6: a
// reply was found only inside Comment, which a phone folds into the Menu). A notice under the bar
// says who replied, with a button that opens the replies; Comment, and the Menu that holds it on a
// phone, carry the count of replies the viewer has not seen. Replies written while the viewer is
// in the room are asked for every twelve flushes (a minute) while the room is in view and the
// viewer has comments. Opening Comment shows them marked New and tells the room they were seen.
// Part of voice.js (voice.ts calls it).
import type { ViewerComment } from '@demo-rooms/contract';
import type { ReplyOf, RoomHooks } from './room-hooks.js';

export type ReplyNotice = {
  /** The new replies are in front of the viewer now (the Comment panel opened). */
  seen: () => void;
  /** Whether the comment's reply was new when this page showed it: marked New in the list. */
  shownNew: (id: string) => boolean;
};

/**
 * Sets up the notice and the counts. `open` opens the Comment panel; `changed` is called when
 * the comments changed (a reply came while the viewer was in the room).
 */
export function replyNotice(room: RoomHooks, open: () => void, changed: () => void): ReplyNotice {
  const voice = room.data.voice;
  const shown = new Set<string>();
  const menu = document.getElementById('tools-toggle');
  const comment = document.getElementById('comment-toggle');
  if (!comment) return { seen: () => {}, shownNew: () => false };

  /** The count on a control: a badge, gone at 0. */
  function count(control: HTMLElement | null, n: number) {
    if (!control) return;
    let badge = control.querySelector<HTMLElement>('.reply-count');
    if (!n) return badge?.remove();
    if (!badge) {
      badge = document.createElement('span');
      badge.className = 'count reply-count';
      badge.title = 'New replies to your comments';
      control.append(' ', badge);
    }
    badge.textContent = String(n);
  }

  function render() {
    const fresh = voice.comments.filter((c) => c.replyNew);
    count(comment, fresh.length);
    count(menu, fresh.length);
    menu?.setAttribute('aria-label', fresh.length ? `Menu, ${fresh.length} new ${fresh.length === 1 ? 'reply' : 'replies'}` : 'Menu');
    let note = document.getElementById('reply-note');
    if (!fresh.length) return note?.remove();
    if (!note) {
      note = document.createElement('p');
      note.className = 'reply-note';
      note.id = 'reply-note';
      note.setAttribute('role', 'status');
      note.append(document.createElement('span'));
      const read = document.createElement('button');
      read.type = 'button';
      read.id = 'reply-note-open';
      read.textContent = 'Read';
      read.addEventListener('click', open);
      note.append(read);
      document.querySelector('main.stage')?.before(note);
    }
    const from = [...new Set(fresh.map((c) => c.from).filter(Boolean))];
    const who = from.length === 1 ? from[0] : 'The sender';
    note.firstElementChild!.textContent = `${who} replied to ${fresh.length === 1 ? 'your comment' : `${fresh.length} of your comments`}.`;
  }

  function seen() {
    const fresh = voice.comments.filter((c) => c.replyNew);
    if (!fresh.length) return;
    for (const c of fresh) {
      shown.add(c.id);
      c.replyNew = false;
    }
    render();
    if (!room.data.preview) room.post('replies-seen', { comments: fresh.map((c) => c.id) }).catch(() => {});
  }

  /** The link's comments as they are now; a reply not seen before counts, and is said. */
  async function ask() {
    if (document.visibilityState !== 'visible' || !voice.comments.length || room.data.preview) return;
    const res = await room.post('replies', {});
    if (!res.ok) return;
    const answer: ReplyOf<'replies'> = await res.json().catch(() => ({}));
    if (!answer.comments) return;
    const before = new Map(voice.comments.map((c) => [c.id, c.repliedAt]));
    const news = answer.comments.some((c: ViewerComment) => c.reply && before.get(c.id) !== c.repliedAt);
    if (!news && answer.comments.length === voice.comments.length) return;
    // A reply this page already showed is not new again while the room is told it was seen.
    for (const c of answer.comments) if (shown.has(c.id) && before.get(c.id) === c.repliedAt) c.replyNew = false;
    voice.comments = answer.comments;
    render();
    changed();
  }
  setInterval(() => ask().catch(() => {}), room.data.flushMs * 12);
  render();
  return { seen, shownNew: (id) => shown.has(id) };
}
