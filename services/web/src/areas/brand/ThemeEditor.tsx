import { useEffect, useMemo, useState } from 'react';
import { type Theme, colourTokens, type FontName, type RadiusName } from '@demo-rooms/contract';
import { addressOf } from '../../api/client.js';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Section } from '../../ui/Page.js';
import { Paywall } from '../../ui/Paywall.js';
import { Refusal } from '../../ui/Refusal.js';
import { ColourInput } from './ColourInput.js';
import { Problems, problemsOf, tokenWords } from './Problems.js';
import { readableOn } from './readable.js';
import { RoomPreview } from './RoomPreview.js';

type ThemeState = NonNullable<ReturnType<typeof useOp<'getTheme'>>['data']>;

export function ThemeEditor() {
  const state = useOp('getTheme');
  return (
    <Section title="Room theme">
      <Async query={state} lines={10}>
        {(s) => <Editor state={s} />}
      </Async>
    </Section>
  );
}

/** Waits until `value` has stayed the same for `ms`: one check per pause in typing, not per key. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

function Editor({ state }: { state: ThemeState }) {
  const [draft, setDraft] = useState<Theme>(state.theme ?? {});
  const settled = useSettled(draft, 250);
  const check = useOp('checkTheme', { body: { theme: settled } });
  const save = useChange('setTheme');
  const reset = useChange('resetTheme', (s) => setDraft(s.theme ?? {}));
  const effective = check.data?.effective ?? state.effective;
  // Only the answer for the draft as it is now: not the last draft's while the new one is asked.
  const problems = check.data && settled === draft && !check.isPlaceholderData ? check.data.problems : [];
  const refused = problemsOf(save.error);
  const set = (token: string, value: string) => setDraft((d) => ({ ...d, [token]: value }));

  const changed = JSON.stringify(draft) !== JSON.stringify(state.theme ?? {});

  return (
    <>
      {!state.planAllows && (
        <Paywall upgrade={state.shownOn ?? undefined}>Your own theme: your plan shows rooms in their own look. The theme is kept.</Paywall>
      )}
      {state.fellBack.length > 0 && (
        <div className="notice">
          <p>The room draws its own colour for:</p>
          <ul>
            {state.fellBack.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="theme-editor">
        <form
          className="theme-fields"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ body: { theme: draft } });
          }}
        >
          <fieldset>
            <legend>Colours</legend>
            <p className="hint">A colour left empty is the room's own (shown as its placeholder).</p>
            {colourTokens.map((t) => (
              <ColourInput
                key={t}
                label={sentence(tokenWords(t))}
                value={(draft as Record<string, string | undefined>)[t] ?? ''}
                placeholder={effective[t]}
                onChange={(v) => set(t, v)}
              />
            ))}
          </fieldset>
          <div className="row">
            <ChoiceField
              id="theme-radius"
              label="Corners"
              value={draft.radius}
              choices={{ square: 'Square', soft: 'Soft', round: 'Round' }}
              onChange={(radius) => setDraft((d) => ({ ...d, radius: radius as Theme['radius'] }))}
            />
            <ChoiceField
              id="theme-font"
              label="Font"
              value={draft.font}
              choices={{ system: 'System', serif: 'Serif', rounded: 'Rounded' }}
              onChange={(font) => setDraft((d) => ({ ...d, font: font as Theme['font'] }))}
            />
          </div>
          <Problems problems={problems} onUse={set} id="theme-problems" />
          {check.isError && <Refusal error={check.error} />}
          <div className="row">
            <button type="submit" disabled={save.isPending}>
              Save theme
            </button>
            <button type="button" className="secondary" disabled={!changed} onClick={() => setDraft(state.theme ?? {})}>
              Undo changes
            </button>
            <button type="button" className="secondary" disabled={reset.isPending || !state.theme} onClick={() => reset.mutate({})}>
              Back to the room's own look
            </button>
            {save.isSuccess && !changed && (
              <span className="ok" role="status">
                Saved.
              </span>
            )}
          </div>
          <Refusal error={save.error} />
          <Problems problems={refused} onUse={set} />
          <Refusal error={reset.error} />
        </form>
        <ThemePreview draft={draft} effective={effective} />
      </div>
    </>
  );
}

/** The room as the draft would draw it, with the workspace's name and logo. */
function ThemePreview({ draft, effective }: { draft: Theme; effective: ThemeState['effective'] }) {
  const brand = useOp('getBrand');
  const me = useOp('whoami');
  const colours = useMemo(() => {
    const drawn: Record<string, string> = Object.fromEntries(
      colourTokens.map((t) => [t, (draft as Record<string, string | undefined>)[t] ?? effective[t] ?? '']),
    );
    if (!draft.accentText && /^#[0-9a-f]{6}$/i.test(drawn.accent)) drawn.accentText = readableOn(drawn.accent);
    return drawn;
  }, [draft, effective]);
  const workspaceId = me.data?.workspace?.id;
  const logo =
    brand.data?.logo && workspaceId ? `${addressOf('workspaceLogo', { workspaceId })}?v=${brand.data.logo.etag.slice(0, 12)}` : null;
  return (
    <div className="theme-preview">
      <h3>Preview</h3>
      <RoomPreview
        colours={colours}
        radius={(draft.radius ?? effective.radius ?? 'soft') as RadiusName}
        font={(draft.font ?? effective.font ?? 'system') as FontName}
        name={brand.data?.name ?? brand.data?.workspaceName ?? 'Your project'}
        logo={logo}
      />
    </div>
  );
}

const sentence = (s: string) => s[0].toUpperCase() + s.slice(1);

/** One of a few named choices, or none (the room's own). */
function ChoiceField({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  id: string;
  label: string;
  value: string | null | undefined;
  choices: Record<string, string>;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <div className="field grow">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">The room's own</option>
        {Object.entries(choices).map(([key, words]) => (
          <option key={key} value={key}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}
