import { useId, useState } from 'react';
import { checkManifest, type Problem } from '@demo-rooms/contract/manifest';
import { Section } from '../../../ui/Page.js';

// A pitch.json checked before a deploy, by the contract's own checker: the same rules, paths and
// words createBuild answers with (400 `issues`), so what this says is what the platform would
// refuse. Nothing is sent anywhere; the folder's own rules (pages, Dockerfile) are the tool's.

type Outcome = { ok: true; name: string } | { ok: false; problems: Problem[] } | null;

function check(text: string): Outcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `not JSON: ${(err as Error).message}` }] };
  }
  const result = checkManifest(parsed);
  return result.ok ? { ok: true, name: result.manifest.name } : { ok: false, problems: result.problems };
}

export function ManifestCheck() {
  const [text, setText] = useState('');
  const [outcome, setOutcome] = useState<Outcome>(null);
  const id = useId();
  return (
    <Section title="Check a pitch.json">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setOutcome(check(text));
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-file`}>Your project's pitch.json</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".json,application/json"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              const content = await file.text();
              setText(content);
              setOutcome(check(content));
            }}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-text`}>Or paste it</label>
          <textarea id={`${id}-text`} value={text} onChange={(e) => setText(e.target.value)} rows={6} spellCheck={false} className="mono" />
        </div>
        <button type="submit" className="secondary" disabled={!text.trim()}>
          Check
        </button>
      </form>
      <div aria-live="polite">
        {outcome?.ok && (
          <p className="ok" role="status">
            It fits: “{outcome.name}” is a manifest this platform takes.
          </p>
        )}
        {outcome && !outcome.ok && (
          <div className="refusal" role="alert">
            <p>The platform would refuse it: {outcome.problems.length === 1 ? 'one problem' : `${outcome.problems.length} problems`}.</p>
            <ul id="manifest-problems">
              {outcome.problems.map((p) => (
                <li key={`${p.path}:${p.message}`}>
                  {p.path ? (
                    <>
                      <code>{p.path}</code>:{' '}
                    </>
                  ) : null}
                  {p.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </Section>
  );
}
