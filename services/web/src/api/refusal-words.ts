import { ApiError, ContractError } from './client.js';

// What a refusal says to a person: the API's own words (`error`), then what it adds (the rule in
// `detail`, each field's problem, the plan that allows more, how long to wait).

export interface Words {
  headline: string;
  details: string[];
}

export function wordsFor(error: unknown): Words {
  if (error instanceof ApiError) {
    const b = error.body;
    const details: string[] = [];
    if (b.detail) details.push(b.detail);
    for (const issue of b.issues ?? []) details.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
    if (error.status === 402 && b.upgrade) details.push(`The ${b.upgrade} plan allows more.`);
    if (error.status === 403 && b.action) details.push(`Your role in this workspace cannot ${b.action}.`);
    const retry = (b as { retryAfter?: number }).retryAfter;
    if (error.status === 429 && retry) details.push(`Try again in ${retry < 90 ? `${retry} s` : `${Math.ceil(retry / 60)} min`}.`);
    return { headline: sentence(b.error), details };
  }
  if (error instanceof ContractError) return { headline: 'The platform answered in a shape this page does not know. Reload the page.', details: [error.message] };
  if (error instanceof TypeError) return { headline: 'The platform could not be reached. Check the connection and try again.', details: [] };
  return { headline: error instanceof Error ? error.message : String(error), details: [] };
}

/** The problem with one field of a 400 invalid, for the words beside that field. */
export function fieldProblem(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.body.issues?.find((i) => i.path === field || i.path.startsWith(`${field}.`))?.message;
}

export const isStatus = (error: unknown, status: number) => error instanceof ApiError && error.status === status;

const sentence = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.') : 'Something went wrong.');
