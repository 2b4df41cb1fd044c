import { useEffect, useState } from 'react';
import type { NextStep, NextStepKind } from '@demo-rooms/contract';
import { useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Paywall } from '../../../ui/Paywall.js';
import { Refusal } from '../../../ui/Refusal.js';
import { moved } from './OrderList.js';

// "What happens next": the buttons the room offers at the end (book a meeting, yes, later…), in
// order, each kind at most once, at most six. Edited here as a draft, saved in one call.

const KINDS: NextStepKind[] = ['meeting', 'yes', 'later', 'colleague', 'question', 'no'];
const KIND_WORDS: Record<NextStepKind, string> = {
  meeting: 'Book a meeting',
  yes: 'Yes',
  later: 'Later',
  colleague: 'Send to a colleague',
  question: 'Ask a question',
  no: 'No',
};

type Draft = { kind: NextStepKind; label: string; prompt: string; url: string };
const draftOf = (s: NextStep): Draft => ({ kind: s.kind, label: s.label, prompt: s.prompt ?? '', url: s.url ?? '' });

export function NextStepsSection({ projectId }: { projectId: string }) {
  const steps = useOp('getNextSteps', { params: { projectId } });
  return (
    <Section title="What happens next">
      <Async query={steps} lines={4}>
        {(s) => <Editor projectId={projectId} steps={s.steps} planAllows={s.planAllows} />}
      </Async>
    </Section>
  );
}

function Editor({ projectId, steps, planAllows }: { projectId: string; steps: NextStep[]; planAllows: boolean }) {
  const [draft, setDraft] = useState<Draft[]>(() => steps.map(draftOf));
  const save = useChange('setNextSteps');
  useEffect(() => setDraft(steps.map(draftOf)), [steps]);
  const unused = KINDS.filter((k) => !draft.some((d) => d.kind === k));
  const change = (i: number, part: Partial<Draft>) => setDraft(draft.map((d, j) => (j === i ? { ...d, ...part } : d)));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          params: { projectId },
          body: {
            steps: draft.map((d) => ({
              kind: d.kind,
              ...(d.label.trim() ? { label: d.label.trim() } : {}),
              prompt: d.prompt.trim() || null,
              url: d.kind === 'meeting' ? d.url.trim() || null : null,
            })),
          },
        });
      }}
    >
      <p className="hint">The buttons a viewer meets at the end of the demo, in this order.</p>
      {!planAllows && <Paywall>Choosing the steps: your plan offers viewers only a question. What you set here is kept.</Paywall>}
      {draft.length === 0 && <p className="muted">No steps: the room asks nothing at the end. Add one below.</p>}
      {draft.map((d, i) => (
        <StepFields
          key={d.kind}
          step={d}
          index={i}
          last={i === draft.length - 1}
          change={(part) => change(i, part)}
          move={(by) => setDraft(moved(draft, i, by))}
          remove={() => setDraft(draft.filter((_, j) => j !== i))}
        />
      ))}
      <div className="row">
        {unused.length > 0 && draft.length < 6 && (
          <>
            <label htmlFor="add-step" className="sr-only">
              Step to add
            </label>
            <select
              id="add-step"
              className="auto-width"
              value=""
              onChange={(e) =>
                e.target.value && setDraft([...draft, { kind: e.target.value as NextStepKind, label: '', prompt: '', url: '' }])
              }
            >
              <option value="">Add a step…</option>
              {unused.map((k) => (
                <option key={k} value={k}>
                  {KIND_WORDS[k]}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit" disabled={save.isPending}>
          Save steps
        </button>
        {save.isSuccess && !save.isPending && (
          <span className="ok" role="status">
            Saved.
          </span>
        )}
      </div>
      <Refusal error={save.error} />
    </form>
  );
}

/** One step: its button words, the line under it, a meeting's booking address, and its moves. */
function StepFields({
  step: d,
  index: i,
  last,
  change,
  move,
  remove,
}: {
  step: Draft;
  index: number;
  last: boolean;
  change: (part: Partial<Draft>) => void;
  move: (by: 1 | -1) => void;
  remove: () => void;
}) {
  return (
    <fieldset className="step-editor">
      <legend>
        {i + 1}. {KIND_WORDS[d.kind]}
      </legend>
      <div className="row">
        <div className="field">
          <label htmlFor={`step-${d.kind}-label`}>Button words</label>
          <input id={`step-${d.kind}-label`} value={d.label} maxLength={60} onChange={(e) => change({ label: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor={`step-${d.kind}-prompt`}>Line under it (optional)</label>
          <input id={`step-${d.kind}-prompt`} value={d.prompt} maxLength={200} onChange={(e) => change({ prompt: e.target.value })} />
        </div>
        {d.kind === 'meeting' && (
          <div className="field">
            <label htmlFor="step-meeting-url">Booking address</label>
            <input
              id="step-meeting-url"
              type="url"
              placeholder="https://cal.com/you"
              value={d.url}
              onChange={(e) => change({ url: e.target.value })}
            />
          </div>
        )}
      </div>
      <div className="row">
        <button type="button" className="secondary" disabled={i === 0} onClick={() => move(-1)}>
          Up<span className="sr-only">: move {KIND_WORDS[d.kind]} up</span>
        </button>
        <button type="button" className="secondary" disabled={last} onClick={() => move(1)}>
          Down<span className="sr-only">: move {KIND_WORDS[d.kind]} down</span>
        </button>
        <button type="button" className="link" onClick={remove}>
          Remove<span className="sr-only"> {KIND_WORDS[d.kind]}</span>
        </button>
      </div>
    </fieldset>
  );
}
