import { ApiError } from '../../api/client.js';
import { wordsFor } from '../../api/refusal-words.js';
import { Refusal } from '../../ui/Refusal.js';

// The API's refusals on this page, headed by a sentence for the reasons only this page meets (the
// API's own `error` is a code like "refused: file"); its detail follows as Refusal shows it.

const headlines: Record<string, string> = {
  file: 'That file is not a photo this platform can use.',
  'only-way-in': 'This is your only way in besides emailed links, so it stays connected.',
  blocked: 'The account cannot be deleted yet.',
  confirm: 'That is not the email of this account.',
  passkey: 'The passkey was not accepted.',
};

export function AccountRefusal({ error }: { error: unknown }) {
  const reason = error instanceof ApiError ? error.body.reason : undefined;
  const headline = reason ? headlines[reason] : undefined;
  if (!error || !headline) return <Refusal error={error} />;
  const { details } = wordsFor(error);
  return (
    <div className="refusal" role="alert">
      <p>{headline}</p>
      {details.length > 0 && <ul>{details.map((d) => <li key={d}>{d}</li>)}</ul>}
    </div>
  );
}
