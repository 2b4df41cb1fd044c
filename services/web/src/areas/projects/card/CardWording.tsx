import { useState } from 'react';
import { isStatus } from '../../../api/refusal-words.js';
import { useChange } from '../../../api/hooks.js';
import { Field } from '../../../ui/Field.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { Time } from '../../../ui/Time.js';
import { Findings, type Card } from './findings.js';

const NO_MODEL = 'No wording model is set up on this platform.';

/** The card's title and line, checked on request (scanCard), drafted by a model where there is one. */
export function CardWording({ card, projectId }: { card: Card; projectId: string }) {
  const params = { projectId };
  const [title, setTitle] = useState(card.title);
  const [line, setLine] = useState(card.line);
  const [credit, setCredit] = useState<boolean | undefined>(undefined);
  const save = useChange('saveCard');
  const scan = useChange('scanCard');
  const suggest = useChange('suggestWording', (r) => {
    setTitle(r.title);
    setLine(r.line);
  });
  const body = { title, line };
  const filled = title.trim() !== '' && line.trim() !== '';
  return (
    <Section title="Card" actions={<SavedAt at={card.updatedAt} />}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ params, body: credit === undefined ? body : { ...body, credit } });
        }}
      >
        <Field
          label="Title"
          name="title"
          value={title}
          maxLength={60}
          required
          hint={`${title.length} of 60 characters.`}
          onChange={(e) => setTitle(e.target.value)}
          error={save.error}
        />
        <Field
          label="Line"
          name="line"
          value={line}
          maxLength={140}
          required
          hint={`${line.length} of 140 characters: what the demo shows, in one sentence.`}
          onChange={(e) => setLine(e.target.value)}
          error={save.error}
        />
        <label className="check">
          <input type="checkbox" checked={credit ?? false} onChange={(e) => setCredit(e.target.checked)} /> Credit the listing to my
          community handle
        </label>
        <div className="row">
          <button type="submit" disabled={save.isPending || !filled}>
            Save card
          </button>
          <button type="button" className="secondary" disabled={scan.isPending || !filled} onClick={() => scan.mutate({ params, body })}>
            Check wording
          </button>
          {card.suggest && (
            <button
              type="button"
              className="secondary"
              disabled={suggest.isPending || !filled}
              onClick={() => suggest.mutate({ params, body })}
            >
              Suggest wording
            </button>
          )}
          {save.isSuccess && (
            <span className="ok" role="status">
              Saved.
            </span>
          )}
        </div>
        {!card.suggest && <p className="hint">{NO_MODEL} Write the title and line yourself.</p>}
        <Refusal error={save.error} />
        <Refusal error={scan.error} />
        {isStatus(suggest.error, 503) ? (
          <p className="notice" role="alert">
            {NO_MODEL}
          </p>
        ) : (
          <Refusal error={suggest.error} />
        )}
        {scan.data &&
          (scan.data.warnings.length === 0 ? (
            <p className="ok" role="status">
              No warnings for this wording.
            </p>
          ) : (
            <Findings items={scan.data.warnings} tone="warn" title="What the checks say about this wording" />
          ))}
      </form>
    </Section>
  );
}

/** When the card was last saved, or that it never was. */
function SavedAt({ at }: { at: Card['updatedAt'] }) {
  return at ? (
    <span className="muted">
      Saved <Time at={at} />
    </span>
  ) : (
    <span className="badge">Not saved yet</span>
  );
}
