import { describe, expect, it } from 'vitest';
import { ApiError, ContractError } from './client.js';
import { fieldProblem, isStatus, needsSignInAgain, wordsFor } from './refusal-words.js';

describe('wordsFor', () => {
  it('turns a code into words by its reason, with the detail under them', () => {
    expect(wordsFor(new ApiError(409, { error: 'refused: taken', reason: 'taken' }))).toEqual({
      headline: 'That is taken: choose another.',
      details: [],
    });
    expect(wordsFor(new ApiError(422, { error: 'refused: size', reason: 'size', detail: 'at most 2 MB' }))).toEqual({
      headline: 'That is larger than allowed.',
      details: ['At most 2 MB.'],
    });
  });

  it('takes a sentence the API already wrote as the headline, capitalised and ended', () => {
    expect(wordsFor(new ApiError(423, { error: 'the room is paused' }))).toEqual({ headline: 'The room is paused.', details: [] });
    expect(wordsFor(new ApiError(402, { error: 'Your plan allows 3 projects.', upgrade: 'solo' }))).toEqual({
      headline: 'Your plan allows 3 projects.',
      details: ['The solo plan allows more.'],
    });
  });

  it('lists each field of a 400 invalid, and falls back on the status for a bare code', () => {
    const invalid = new ApiError(400, {
      error: 'invalid',
      issues: [
        { path: 'name', message: 'too long' },
        { path: '', message: 'empty body' },
      ],
    });
    expect(wordsFor(invalid)).toEqual({ headline: 'Some of what you entered does not fit.', details: ['name: too long', 'empty body'] });
    expect(wordsFor(new ApiError(404, { error: 'not found' })).headline).toBe(
      'Not found: it was deleted, or it belongs to another workspace.',
    );
  });

  it('says what a 403 would take: an owner, or a fresh sign-in', () => {
    expect(wordsFor(new ApiError(403, { error: 'role cannot', action: 'deleteWebhookEndpoint' }))).toEqual({
      headline: 'Your role in this workspace cannot do that.',
      details: ['It takes an owner to delete webhook endpoint.'],
    });
    expect(wordsFor(new ApiError(403, { error: 'role cannot', stepUp: 'browser' })).headline).toMatch(/^Only the web app/);
  });

  it('says how long to wait after a 429, in seconds below 90 and in minutes above', () => {
    expect(wordsFor(new ApiError(429, { error: 'too many sign-in links', retryAfter: 30 })).details).toEqual(['Try again in 30 s.']);
    expect(wordsFor(new ApiError(429, { error: 'too many sign-in links', retryAfter: 600 })).details).toEqual(['Try again in 10 min.']);
  });

  it('names a refused cross-site request, a reply off the contract, a lost connection and anything else', () => {
    expect(wordsFor(new ApiError(403, { error: 'refused: csrf', reason: 'csrf' })).headline).toMatch(/did not come from this page/);
    const offContract = new ContractError('listProjects', []);
    expect(wordsFor(offContract)).toEqual({
      headline: 'The platform answered in a shape this page does not know. Reload the page.',
      details: [offContract.message],
    });
    expect(wordsFor(new TypeError('Failed to fetch')).headline).toBe(
      'The platform could not be reached. Check the connection and try again.',
    );
    expect(wordsFor(new Error('boom'))).toEqual({ headline: 'boom', details: [] });
    expect(wordsFor('odd')).toEqual({ headline: 'odd', details: [] });
  });
});

describe('the smaller questions', () => {
  const stepUp = new ApiError(403, { error: 'role cannot', stepUp: 'sign-in-again' });

  it('needsSignInAgain is true only for a 403 that asks for a fresh sign-in', () => {
    expect(needsSignInAgain(stepUp)).toBe(true);
    expect(needsSignInAgain(new ApiError(403, { error: 'role cannot', stepUp: 'browser' }))).toBe(false);
    expect(needsSignInAgain(new Error('sign-in-again'))).toBe(false);
  });

  it('fieldProblem finds a field and its nested parts, and nothing for other errors', () => {
    const invalid = new ApiError(400, { error: 'invalid', issues: [{ path: 'theme.accent', message: 'not a colour' }] });
    expect(fieldProblem(invalid, 'theme')).toBe('not a colour');
    expect(fieldProblem(invalid, 'them')).toBeUndefined();
    expect(fieldProblem(new Error('x'), 'theme')).toBeUndefined();
  });

  it('isStatus checks an API refusal status', () => {
    expect(isStatus(stepUp, 403)).toBe(true);
    expect(isStatus(stepUp, 404)).toBe(false);
    expect(isStatus(new Error('403'), 403)).toBe(false);
  });
});
