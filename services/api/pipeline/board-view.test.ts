import { describe, expect, it } from 'vitest';
import type { ClaimRow } from '../../data/link-claims.sql.js';
import { forwardedOf } from './board-view.js';

// Who else is behind a link (issue 47, item 4): the same person on their phone is not a forward.

const at = new Date('2026-11-29T09:00:00Z');
const claim = (name: string | null, browser: string, email: string | null = null): ClaimRow => ({
  linkId: 'l',
  sessionId: `${name}-${browser}`,
  name,
  email,
  browserHash: Buffer.from(browser),
  device: null,
  firstSeenAt: at,
  lastSeenAt: at,
});
const link = { viewerName: 'Ada Lovelace', viewerEmail: 'ada@example.com' };

describe('forwardedOf', () => {
  it("does not count the link's own viewer on a second and third device", () => {
    const claims = [claim('Ada Lovelace', 'laptop'), claim('ada lovelace ', 'phone'), claim('Ada Lovelace', 'tablet', 'ADA@example.com')];
    expect(forwardedOf(link, claims)).toEqual({ shown: [], count: 0 });
  });

  it('counts another name, another email, and an unnamed claim from another browser', () => {
    const claims = [
      claim('Ada Lovelace', 'laptop'),
      claim('Bo Colleague', 'desk'),
      claim('Ada Lovelace', 'phone', 'someone@else.example'),
      claim(null, 'kiosk'),
    ];
    const { shown, count } = forwardedOf(link, claims);
    expect(count).toBe(3);
    expect(shown.map((f) => f.why)).toEqual([['name', 'browser'], ['email', 'browser'], ['browser']]);
  });
});
