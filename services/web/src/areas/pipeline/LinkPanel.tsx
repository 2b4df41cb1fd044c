import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { BoardCard, LinkOutcome } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Dialog } from '../../ui/Dialog.js';
import { Field } from '../../ui/Field.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';
import { stageName } from './stages.js';

// A link opened from the board: what came of it (outcome), a reminder for the builder (follow-up), their notes.
// Nothing here is shown to the viewer or sent to anyone.

export function LinkPanel({ card, onClose }: { card: BoardCard; onClose: () => void }) {
  const params = { linkId: card.id };
  const setStage = useChange('setStage');
  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={card.viewerName}
      description={`${card.projectName} · ${stageName(card.stage)}${card.placed ? ' (placed by hand)' : ''}`}
    >
      <p>
        <Link href={`~/journey/${card.id}`}>See {card.viewerName}’s journey</Link>
        {' · '}
        {card.signals.visits} visits · last seen <Time at={card.signals.lastSeenAt} />
      </p>
      {card.placed && (
        <p className="row">
          <span className="muted">The evidence says {stageName(card.suggested)}.</span>
          <button type="button" className="secondary" onClick={() => setStage.mutate({ params, body: { stage: null } })}>
            Follow the evidence
          </button>
        </p>
      )}
      <Refusal error={setStage.error} />

      <h3>Outcome</h3>
      <OutcomeForm card={card} />

      <h3>Follow-up</h3>
      <FollowUpForm card={card} />

      <h3>Notes</h3>
      <LinkNotes linkId={card.id} />
    </Dialog>
  );
}

/** What came of the link: won, lost, later, or none yet. */
function OutcomeForm({ card }: { card: BoardCard }) {
  const params = { linkId: card.id };
  const [outcome, setOutcomeValue] = useState<string>(card.outcome ?? '');
  const setOutcome = useChange('setOutcome');
  return (
    <>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setOutcome.mutate({ params, body: { outcome: (outcome || null) as LinkOutcome | null } });
        }}
      >
        <label htmlFor="card-outcome">Outcome</label>
        <select id="card-outcome" value={outcome} onChange={(e) => setOutcomeValue(e.target.value)}>
          <option value="">None yet</option>
          <option value="won">Won</option>
          <option value="lost">Lost</option>
          <option value="later">Later</option>
        </select>
        <button type="submit" disabled={setOutcome.isPending}>
          Save outcome
        </button>
        {setOutcome.isSuccess && (
          <span className="ok" role="status">
            Saved
          </span>
        )}
      </form>
      <Refusal error={setOutcome.error} />
    </>
  );
}

/** The builder's reminder: a day and a note, saved or cleared. */
function FollowUpForm({ card }: { card: BoardCard }) {
  const params = { linkId: card.id };
  const [on, setOn] = useState(card.followUp.on ?? '');
  const [followNote, setFollowNote] = useState(card.followUp.note ?? '');
  const followUp = useChange('followUp');
  const saveFollowUp = (e: FormEvent) => {
    e.preventDefault();
    followUp.mutate({ params, body: { on: on || null, note: followNote.trim() || null } });
  };
  return (
    <form onSubmit={saveFollowUp}>
      <Field label="On" type="date" name="on" value={on} onChange={(e) => setOn(e.target.value)} error={followUp.error} />
      <Field
        label="Reminder"
        name="note"
        value={followNote}
        onChange={(e) => setFollowNote(e.target.value)}
        error={followUp.error}
        maxLength={2000}
      />
      <div className="row">
        <button type="submit" disabled={followUp.isPending}>
          Save follow-up
        </button>
        {(card.followUp.on || card.followUp.note) && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setOn('');
              setFollowNote('');
              followUp.mutate({ params, body: { on: null, note: null } });
            }}
          >
            Clear follow-up
          </button>
        )}
        {followUp.isSuccess && (
          <span className="ok" role="status">
            Saved
          </span>
        )}
      </div>
      <Refusal error={followUp.error} />
    </form>
  );
}

/** The team's notes on the link: a new one added, each removed after a second word. */
function LinkNotes({ linkId }: { linkId: string }) {
  const params = { linkId };
  const [note, setNote] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  const notes = useOp('listNotes', { params });
  const addNote = useChange('addNote', () => setNote(''));
  const removeNote = useChange('removeNote', () => setRemoving(null));
  const add = (e: FormEvent) => {
    e.preventDefault();
    addNote.mutate({ params, body: { body: note } });
  };
  return (
    <>
      <form onSubmit={add}>
        <label htmlFor="card-note">New note</label>
        <textarea id="card-note" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
        <button type="submit" disabled={!note.trim() || addNote.isPending}>
          Add note
        </button>
        <Refusal error={addNote.error} />
      </form>
      <Async query={notes} lines={2} empty={<p>No notes yet: only you and your team see them.</p>}>
        {(list) => (
          <ul className="notes">
            {list.map((n) => (
              <li key={n.id}>
                <p>{n.body}</p>
                <p className="muted">
                  {n.by ?? 'Someone'} · <Time at={n.createdAt} />
                </p>
                {removing === n.id ? (
                  <div className="row" role="group" aria-label="Remove this note?">
                    <span>Remove this note for good?</span>
                    <button type="button" className="danger" onClick={() => removeNote.mutate({ params: { noteId: n.id } })}>
                      Remove note
                    </button>
                    <button type="button" className="secondary" onClick={() => setRemoving(null)}>
                      Keep
                    </button>
                  </div>
                ) : (
                  <button type="button" className="link" onClick={() => setRemoving(n.id)}>
                    Remove
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Async>
      <Refusal error={removeNote.error} />
    </>
  );
}
