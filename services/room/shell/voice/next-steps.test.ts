import { describe, expect, it } from 'vitest';
import { answeredText, refusalText } from './next-steps.js';

describe('What happens next, answered', () => {
  it("thanks the viewer in the sender's name, or says a preview records nothing", () => {
    expect(answeredText({ recorded: true }, 'Grace')).toBe('Thank you. Grace will see your answer.');
    expect(answeredText({ recorded: true }, null)).toBe('Thank you. The sender will see your answer.');
    expect(answeredText({ recorded: false }, 'Grace')).toBe('Preview: not recorded.');
  });

  it('says a refusal by its first issue', () => {
    expect(refusalText({ issues: [{ path: 'detail.email', message: 'Invalid email' }] } as never)).toBe('Invalid email');
    expect(refusalText({})).toBe('That did not go through. Try again.');
  });
});
