import { useId, useState, type FormEvent } from 'react';
import { useChange, useOp } from '../../api/hooks.js';
import { fieldProblem } from '../../api/refusal-words.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';

// A note to the people who make the platform, filed with the page it came from; and the small
// preferences the app keeps for the person.

export function FeedbackSection() {
  const prefs = useOp('myPreferences');
  const [sent, setSent] = useState(false);
  const send = useChange('sendProductFeedback', () => setSent(true));
  const fold = useChange('foldFeedbackTab');
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const body = String(new FormData(form).get('body') ?? '').trim();
    setSent(false);
    send.mutate({ body: { body, page: window.location.pathname } }, { onSuccess: () => form.reset() });
  };
  const problem = fieldProblem(send.error, 'body');
  return (
    <Section title="Feedback and preferences">
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={id}>Tell us what works and what does not</label>
          <textarea
            id={id}
            name="body"
            maxLength={2000}
            required
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onChange={() => setSent(false)}
          />
          {problem && (
            <p className="problem" id={`${id}-problem`}>
              {problem}
            </p>
          )}
        </div>
        <button type="submit" disabled={send.isPending}>
          Send feedback
        </button>
      </form>
      <Refusal error={problem ? null : send.error} />
      {sent && (
        <p className="ok" role="status">
          Thank you: your note reached the team.
        </p>
      )}
      {prefs.data && (
        <div className="row spaced">
          <span className="muted">
            Feedback tab {prefs.data.feedbackTabFolded ? 'folded away' : 'shown on every page'}.
            {prefs.data.welcomeSeenAt && (
              <>
                {' '}
                Welcome seen <Time at={prefs.data.welcomeSeenAt} />.
              </>
            )}
          </span>
          <button type="button" className="link" onClick={() => fold.mutate({ body: { folded: !prefs.data!.feedbackTabFolded } })}>
            {prefs.data.feedbackTabFolded ? 'Show the feedback tab' : 'Fold the feedback tab'}
          </button>
        </div>
      )}
      <Refusal error={fold.error} />
    </Section>
  );
}
