import { useState, type FormEvent } from 'react';
import type { FeedbackRec } from '@demo-rooms/contract';
import { addressOf } from '../../../api/client.js';
import { useChange } from '../../../api/hooks.js';
import { Confirm } from '../../../ui/Confirm.js';
import { Refusal } from '../../../ui/Refusal.js';
import { Time } from '../../../ui/Time.js';

// One comment of the inbox: what the viewer said, where they pinned it (drawn over the picture
// of their screen), the thread, and what the builder does with it: reply, resolve, remove the picture.

const NOTE_WORDS: Record<string, string> = {
  removed: 'The screenshot was removed.',
  'no-answer': 'No screenshot: the app did not answer in time.',
  timeout: 'No screenshot: taking it took too long.',
  blocked: 'No screenshot: the app blocks being captured.',
  tainted: 'No screenshot: the page shows images from another site that cannot be captured.',
  'too-large': 'No screenshot: it was too large to keep.',
  failed: 'No screenshot: taking it failed.',
  blank: 'No screenshot: the picture came out blank.',
};

export function CommentCard({ comment }: { comment: FeedbackRec }) {
  const reply = useChange('replyToComment', () => setText(''));
  const resolve = useChange('resolveComment');
  const remove = useChange('removeScreenshot', () => setConfirming(false));
  const [text, setText] = useState('');
  const [confirming, setConfirming] = useState(false);
  const params = { commentId: comment.id };
  const where = [comment.appName ?? comment.appId, comment.screen].filter(Boolean).join(' · ');
  const who = comment.viewerName ?? 'A viewer';
  const send = (e: FormEvent) => {
    e.preventDefault();
    reply.mutate({ params, body: { body: text } });
  };
  return (
    <li className={`comment${comment.resolvedAt ? ' resolved' : ''}`} aria-label={`Comment by ${who}`}>
      <div className="row">
        <strong>{who}</strong>
        {comment.viewerEmail && <span className="muted">{comment.viewerEmail}</span>}
        <span className="meta">
          <Time at={comment.createdAt} /> · {where || 'the room'}
          {comment.device ? ` · ${comment.device}` : ''}
        </span>
        {comment.resolvedAt ? <span className="badge ok">Resolved</span> : <span className="badge warn">Open</span>}
      </div>
      <blockquote>{comment.body}</blockquote>
      <p className="meta">{pinWords(comment)}</p>
      <Screenshot comment={comment} who={who} where={where} />
      {comment.reply && (
        <ul className="thread" aria-label="Replies">
          <li>
            <strong>{comment.from?.displayName ?? 'You'}</strong>{' '}
            <span className="meta">
              <Time at={comment.repliedAt} />
            </span>
            <p>{comment.reply}</p>
          </li>
        </ul>
      )}
      <form onSubmit={send} aria-label={`Reply to ${who}`}>
        <label className="sr-only" htmlFor={`reply-${comment.id}`}>
          Your reply
        </label>
        <textarea
          id={`reply-${comment.id}`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={
            comment.reply ? 'Replace your reply (the viewer sees it on their next visit)' : 'Reply (the viewer sees it on their next visit)'
          }
          maxLength={2000}
        />
        <Refusal error={reply.error} />
        <div className="row">
          <button type="submit" disabled={!text.trim() || reply.isPending}>
            {comment.reply ? 'Replace reply' : 'Reply'}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={resolve.isPending}
            onClick={() => resolve.mutate({ params, body: { resolved: !comment.resolvedAt } })}
          >
            {comment.resolvedAt ? 'Reopen' : 'Resolve'}
          </button>
          {comment.hasScreenshot && (
            <button type="button" className="secondary" onClick={() => setConfirming(true)}>
              Remove screenshot
            </button>
          )}
        </div>
        <Refusal error={resolve.error} />
      </form>
      <Confirm
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Remove this screenshot?"
        description="It is deleted for good; the comment and its reply stay."
        action="Remove for good"
        cancel="Keep it"
        onConfirm={() => remove.mutate({ params })}
        pending={remove.isPending}
        error={remove.error}
      />
    </li>
  );
}

/** What the viewer saw when commenting, with the point or area marked; or why there is no picture. */
function Screenshot({ comment, who, where }: { comment: FeedbackRec; who: string; where: string }) {
  const params = { commentId: comment.id };
  const note = comment.screenshotNote;
  return comment.hasScreenshot ? (
    <div className="shot">
      <img
        src={addressOf('getScreenshot', params)}
        alt={`What ${who} saw on ${where || 'the room'} when commenting, with the ${comment.area ? 'area' : 'point'} marked`}
        loading="lazy"
      />
      {comment.position && (
        <span className="pin" aria-hidden="true" style={{ left: `${comment.position.x * 100}%`, top: `${comment.position.y * 100}%` }} />
      )}
      {comment.area && (
        <span
          className="box"
          aria-hidden="true"
          style={{
            left: `${comment.area.x * 100}%`,
            top: `${comment.area.y * 100}%`,
            width: `${comment.area.width * 100}%`,
            height: `${comment.area.height * 100}%`,
          }}
        />
      )}
    </div>
  ) : (
    <p className="muted">{note ? NOTE_WORDS[note] : 'No screenshot with this comment.'}</p>
  );
}

function pinWords(c: FeedbackRec): string {
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  if (c.area)
    return `Marked an area ${pct(c.area.width)} wide and ${pct(c.area.height)} high, ${pct(c.area.x)} from the left, ${pct(c.area.y)} from the top.`;
  if (c.position) return `Pinned at ${pct(c.position.x)} from the left, ${pct(c.position.y)} from the top.`;
  return 'On the whole screen.';
}
