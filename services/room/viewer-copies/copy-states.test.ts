import { describe, expect, it } from 'vitest';
import { copyNotice } from './copy-states.js';

describe('what a viewer reads of their copy', () => {
  it('says a copy stopped at its start deadline took too long, not that it did not answer', () => {
    const notice = copyNotice({ state: 'failed', copyId: 'c1', detail: 'deadline', version: 'c1:4' });
    expect(notice).toMatchObject({ state: 'failed', title: 'Could not start', waiting: false });
    expect(notice.message).toMatch(/took too long to start/);
    expect(copyNotice({ state: 'failed', copyId: 'c1', detail: 'health', version: 'c1:4' }).message).not.toMatch(/too long/);
  });
});
