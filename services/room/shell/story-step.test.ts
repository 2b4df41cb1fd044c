import { describe, expect, it } from 'vitest';
import { offerMemory, offerShown, stepCard } from './story-step.js';

describe("the story runner's card", () => {
  it('has no Back on the first step and no Next on the last', () => {
    expect(stepCard(0, 3)).toEqual({ at: 0, count: 'Step 1 of 3', backHidden: true, nextHidden: false, last: false });
    expect(stepCard(1, 3)).toEqual({ at: 1, count: 'Step 2 of 3', backHidden: false, nextHidden: false, last: false });
    expect(stepCard(2, 3)).toEqual({ at: 2, count: 'Step 3 of 3', backHidden: false, nextHidden: true, last: true });
  });

  it('stays inside the story when a move would leave it', () => {
    expect(stepCard(-1, 3).at).toBe(0);
    expect(stepCard(5, 3).at).toBe(2);
    expect(stepCard(0, 1)).toMatchObject({ backHidden: true, nextHidden: true, last: true });
  });

  it('offers What happens next on the last step only, until it is put away', () => {
    expect(offerShown(true, false)).toBe(true);
    expect(offerShown(true, true)).toBe(false);
    expect(offerShown(false, false)).toBe(false);
  });
});

describe('the offer put away', () => {
  it('is kept for the session, by session', () => {
    const kept = new Map<string, string>();
    const store = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
    const memory = offerMemory(() => store, 's1');
    expect(memory.dismissed()).toBe(false);
    memory.dismiss();
    expect(memory.dismissed()).toBe(true);
    expect(kept.get('pp:next-offer:s1')).toBe('dismissed');
    expect(offerMemory(() => store, 's2').dismissed()).toBe(false);
  });

  it('is forgotten, without a fault, where storage is refused (private mode)', () => {
    const refused = () => {
      throw new Error('SecurityError');
    };
    const memory = offerMemory(refused, 's1');
    expect(() => memory.dismiss()).not.toThrow();
    expect(memory.dismissed()).toBe(false);
  });
});
