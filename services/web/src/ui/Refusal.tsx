import { ApiError } from '../api/client.js';
import { needsSignInAgain, wordsFor } from '../api/refusal-words.js';
import { Paywall } from './Paywall.js';
import { StepUp } from './StepUp.js';

/**
 * A refusal of the API in words, placed next to what caused it; nothing while there is none. One
 * that asks for a recent sign-in offers it here, and then `retry` (the change refused), if given.
 */
export function Refusal({ error, id, retry }: { error: unknown; id?: string; retry?: () => void }) {
  if (!error) return null;
  const { headline, details } = wordsFor(error);
  // A plan's limit is no error of the person's: it reads as every page's paywall.
  if (error instanceof ApiError && error.status === 402)
    return (
      <Paywall upgrade={error.body.upgrade ?? undefined} alert>
        {headline}
      </Paywall>
    );
  return (
    <div className="refusal" role="alert" id={id}>
      <p>{headline}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      {needsSignInAgain(error) && <StepUp retry={retry} />}
    </div>
  );
}
