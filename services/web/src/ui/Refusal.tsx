import { wordsFor } from '../api/refusal-words.js';

/** A refusal of the API in words, placed next to what caused it; nothing while there is none. */
export function Refusal({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const { headline, details } = wordsFor(error);
  return (
    <div className="refusal" role="alert" id={id}>
      <p>{headline}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d) => <li key={d}>{d}</li>)}
        </ul>
      )}
    </div>
  );
}
