import type { ContrastProblem } from '@demo-rooms/contract';
import { ApiError } from '../../api/client.js';

const TOKEN_WORDS: Record<string, string> = {
  background: 'background',
  surface: 'surface',
  text: 'text',
  muted: 'muted text',
  accent: 'accent',
  accentText: 'text on the accent',
  border: 'border',
};
export const tokenWords = (t: string) => TOKEN_WORDS[t] ?? t;

/** The problems a 400 contrast refusal carries, to show beside the control that was refused. */
export function problemsOf(error: unknown): ContrastProblem[] {
  if (!(error instanceof ApiError)) return [];
  const problems = (error.body as { problems?: ContrastProblem[] }).problems;
  return Array.isArray(problems) ? problems : [];
}

/** Each unreadable pair in words, with the API's nearest passing shade one click away. */
export function Problems({
  problems,
  onUse,
  id,
}: {
  problems: ContrastProblem[];
  onUse?: (token: string, shade: string) => void;
  id?: string;
}) {
  if (problems.length === 0) return null;
  return (
    <div className="contrast-problems" id={id} role="status">
      <p>
        <strong>{problems.length === 1 ? 'One pair is' : `${problems.length} pairs are`} hard to read in the room:</strong>
      </p>
      <ul>
        {problems.map((p) => (
          <li key={`${p.pair}-${p.scheme}`}>
            <Swatch colour={p.colours.foreground} />
            <Swatch colour={p.colours.background} /> {sentence(tokenWords(p.foreground))} ({p.colours.foreground}) on{' '}
            {tokenWords(p.background)} ({p.colours.background}){p.scheme === 'dark' ? ' in the dark palette' : ''}: contrast{' '}
            {p.ratio.toFixed(2)}:1, needs {p.needed}:1.
            {p.shade && onUse && (
              <>
                {' '}
                <button type="button" className="secondary small" onClick={() => onUse(p.token, p.shade!)}>
                  Use {p.shade}
                </button>
              </>
            )}
            {!p.shade && <span className="muted"> No shade of this hue passes; pick another colour for the {tokenWords(p.token)}.</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

const sentence = (s: string) => s[0].toUpperCase() + s.slice(1);

/** A small square of a colour, set through the CSSOM (the policy forbids style attributes). */
function Swatch({ colour }: { colour: string }) {
  return <span className="swatch" aria-hidden="true" ref={(el) => el?.style.setProperty('background', colour)} />;
}
