// The guided story's pure rules: which step a move lands on and what its card offers, and the
// "What happens next" offer's dismissal kept for the session. Part of shell.js (story.ts).

/** The card of step `index` (clamped to the story) among `length` steps. */
export function stepCard(index: number, length: number) {
  const at = Math.max(0, Math.min(length - 1, index));
  const last = at === length - 1;
  return {
    at,
    count: `Step ${at + 1} of ${length}`,
    /** No Back on the first step; no Next on the last, which has Done instead. */
    backHidden: at === 0,
    nextHidden: last,
    last,
  };
}

/** Whether the offer of What happens next shows, and marks its button: on the last step, until put away. */
export const offerShown = (last: boolean, dismissed: boolean) => last && !dismissed;

type SessionStore = Pick<Storage, 'getItem' | 'setItem'>;

/** "Not now" (or closing What happens next), kept for the session on every step and tab. */
export function offerMemory(store: () => SessionStore, sessionId: string) {
  const key = `pp:next-offer:${sessionId}`;
  return {
    dismissed: () => {
      try {
        return store().getItem(key) === 'dismissed';
      } catch {
        return false;
      }
    },
    dismiss: () => {
      try {
        store().setItem(key, 'dismissed');
      } catch {
        /* private mode: this page only */
      }
    },
  };
}
