import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

// The cookie a content origin keeps for one viewer session: `<session id>.<label>.<expiry>.<mac>`,
// signed with a key derived from APP_SECRET. Checking it needs no database; whether the session
// still stands is asked separately (and cached for a few seconds).

// `__Host-` like the platform's cookies: one content origin cannot set it for another.
export const viewCookie = '__Host-pp_view';
/**
 * What a content origin asks the browser to forget once the viewer's way in has ended (link
 * revoked, project deleted, session over): the build's service workers, storage and cookies.
 */
export const CLEAR_SITE_DATA = '"cache", "cookies", "storage"';

/** A content cookie lasts as long as a room session can. */
export const viewSeconds = 12 * 3600;

export function viewTokens(appSecret: string) {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(appSecret.toLowerCase(), 'utf8'), Buffer.alloc(0), 'content-view-token', 32));
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    /** A token for `sessionId` on the origin labelled `label`. */
    sign(sessionId: string, label: string, now = Date.now()): string {
      const payload = `${sessionId}.${label}.${Math.floor(now / 1000) + viewSeconds}`;
      return `${payload}.${mac(payload)}`;
    },
    /** The session id, when the token is ours, unexpired, and made for this very origin. */
    check(token: string | undefined, label: string, now = Date.now()): string | null {
      if (!token || token.length > 300) return null;
      const parts = token.split('.');
      if (parts.length !== 4) return null;
      const [sessionId, forLabel, expires, given] = parts;
      const expected = Buffer.from(mac(`${sessionId}.${forLabel}.${expires}`));
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
      if (forLabel !== label || Number(expires) * 1000 <= now) return null;
      return sessionId;
    },
  };
}
