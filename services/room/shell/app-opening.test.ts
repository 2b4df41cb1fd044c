import { describe, expect, it } from 'vitest';
import { grantStep } from './app-opening.js';

describe("a grant's answer, read", () => {
  it('opens the app at its address on its origin', () => {
    expect(grantStep(true, { state: 'ready', origin: 'http://a.example', url: 'http://a.example/?t=1' })).toEqual({
      open: { url: 'http://a.example/?t=1', origin: 'http://a.example' },
    });
  });

  it('asks again when the runner says (queued), soon when the copy is starting', () => {
    const queued = { state: 'queued' as const, title: 'Waiting', message: 'In line', waiting: true, retryMs: 7_300 };
    expect(grantStep(true, queued)).toEqual({ notice: queued, retryMs: 7_300 });
    expect(grantStep(true, { ...queued, retryMs: undefined })).toMatchObject({ retryMs: 2_000 });
    expect(grantStep(true, { state: 'starting', title: 'Starting', message: '…', waiting: true })).toMatchObject({ retryMs: 500 });
  });

  it("stops on a refusal, with its words or the room's", () => {
    expect(grantStep(false, { message: 'No such app' })).toEqual({
      notice: { title: 'Could not open', message: 'No such app' },
      retryMs: null,
    });
    expect(grantStep(false, {})).toEqual({
      notice: { title: 'Could not open', message: 'This part of the demo could not be opened. Reload to try again.' },
      retryMs: null,
    });
  });

  it('keeps asking after a lost connection, and stops on a notice that does not wait', () => {
    expect(grantStep(false, null)).toEqual({
      notice: { title: 'Connection lost', message: 'The room lost its connection. Retrying…', waiting: true },
      retryMs: 500,
    });
    const stopped = { state: 'failed' as const, title: 'Stopped', message: 'It stopped', waiting: false };
    expect(grantStep(true, stopped)).toEqual({ notice: stopped, retryMs: null });
  });
});
