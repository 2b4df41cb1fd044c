import { operationWords } from '@demo-rooms/contract';
import { ApiError, ContractError } from './client.js';

// What a refusal says to a person. The API's `error` is sometimes a code ("refused: taken",
// "invalid", "not found") and sometimes already a sentence (a plan's limit, a pause, a rate):
// codes become words here, by `reason` (with the API's `detail` under them) or else by the
// detail itself or the status; then what it adds (each field's problem, the plan that allows more, how long to wait).

export interface Words {
  headline: string;
  details: string[];
}

/** Words for the `reason` of a 409 or 422 that came without a `detail`. */
const REASONS: Record<string, string> = {
  taken: 'That is taken: choose another.',
  reserved: 'That address is reserved for the platform.',
  format: 'That address does not fit: 3 to 40 lowercase letters, digits and dashes.',
  impersonation: 'That address reads like another company or the platform itself.',
  banned: 'That address is not allowed.',
  unlicensed: 'A team needs a plan before another one can be made.',
  range: 'That range of days does not work.',
  file: 'That file is not an image this platform can use.',
  size: 'That is larger than allowed.',
  confirm: 'That does not match what was asked for.',
  expired: 'That has expired.',
  revoked: 'That was revoked.',
  used: 'That was used already.',
  order: 'That order does not name each item once.',
  'only-way-in': 'That is your only way in besides emailed links, so it stays.',
  state: 'That sign-in took too long or was already used. Try again.',
  provider: 'The provider did not vouch for you.',
  passkey: 'The passkey was not accepted.',
  blocked: 'Not yet: something below stands in the way.',
  elsewhere: 'This sign-in link was asked for in another browser.',
};

/** 403 `permission` on account power (services/api/auth/step-up.ts): what would allow it. */
const STEP_UP: Record<'browser' | 'sign-in-again', string> = {
  'sign-in-again':
    'To change how you sign in, mint a token or delete the account, confirm it is you: sign in again, then it is tried once more.',
  browser: 'Only the web app, signed in in a browser, can do that: not a command-line or connector token.',
};

/** The refusal asks for a sign-in of the last few minutes (then the change can be tried again). */
export const needsSignInAgain = (error: unknown) =>
  error instanceof ApiError && error.status === 403 && error.body.stepUp === 'sign-in-again';

const BY_STATUS: Record<number, string> = {
  400: 'Some of what you entered does not fit.',
  401: 'You are signed out. Sign in again.',
  403: 'Your role in this workspace cannot do that.',
  404: 'Not found: it was deleted, or it belongs to another workspace.',
  503: 'Not available on this platform.',
};

export function wordsFor(error: unknown): Words {
  if (error instanceof ApiError) {
    const b = error.body;
    const details: string[] = [];
    for (const issue of b.issues ?? []) details.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
    if (error.status === 402 && b.upgrade) details.push(`The ${b.upgrade} plan allows more.`);
    if (error.status === 403 && b.stepUp) return { headline: STEP_UP[b.stepUp], details };
    if (error.status === 403 && b.action) details.push(`It takes an owner to ${operationWords(b.action)}.`);
    const retry = (b as { retryAfter?: number }).retryAfter;
    if (error.status === 429 && retry) details.push(`Try again in ${retry < 90 ? `${retry} s` : `${Math.ceil(retry / 60)} min`}.`);
    const coded = /^(refused: |invalid$|not found$|sign in first$|role cannot$|unavailable$)/.test(b.error);
    if (!coded) return { headline: sentence(b.error), details: b.detail ? [sentence(b.detail), ...details] : details };
    if (b.reason === 'csrf') return { headline: 'The platform refused a request that did not come from this page. Reload it.', details };
    const known = b.reason ? REASONS[b.reason] : undefined;
    if (known) return { headline: known, details: b.detail ? [sentence(b.detail), ...details] : details };
    if (b.detail) return { headline: sentence(b.detail), details };
    return { headline: BY_STATUS[error.status] ?? sentence(b.error), details };
  }
  if (error instanceof ContractError)
    return { headline: 'The platform answered in a shape this page does not know. Reload the page.', details: [error.message] };
  if (error instanceof TypeError)
    return { headline: 'The platform could not be reached. Check the connection and try again.', details: [] };
  return { headline: error instanceof Error ? error.message : String(error), details: [] };
}

/** The problem with one field of a 400 invalid, for the words beside that field. */
export function fieldProblem(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.body.issues?.find((i) => i.path === field || i.path.startsWith(`${field}.`))?.message;
}

export const isStatus = (error: unknown, status: number) => error instanceof ApiError && error.status === status;

const sentence = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.') : 'Something went wrong.');
