import { createHmac } from 'node:crypto';
import { VIEWER_COMPANY_HEADER, VIEWER_NAME_HEADER } from '../personal.js';

// The copy token (issue 31; docs/runner.md, "Data plane"): a short-lived HS256 JWT the room mints
// for one viewer session's copy, kept in the copy origin's cookie `__Host-pp_copy`. The data plane
// (HAProxy, infra/dataplane/haproxy.cfg.tmpl) verifies it natively on every request (jwt_verify),
// checks that it names the request's copy origin (`lbl`) and the copy its route leads to (`cid`)
// and that it has not expired (`exp`), and passes the request straight to the copy: no call to
// Node per request. The room refreshes it on every answer it gives on the copy origin; the cookie
// lapses a little before the token does, so the browser never sends an expired one (the data plane
// refuses those) but asks the room again. For a personalised copy it also carries who the viewer
// is (`vn`, `vc`), which the data plane sends on as the copy's X-Demo-Viewer-* headers.

export const copyCookie = '__Host-pp_copy';
/** How long a token lasts (s): what a revoke may take on a data plane whose route was not removed (it always is). */
export const copyTokenSeconds = 300;
/** The cookie lapses this much earlier (s), so a request in flight at its end is not refused. */
const cookieMarginSeconds = 15;

export interface CopyTokenClaims {
  /** The copy origin's route key: the `v<12 hex>` of `<slug>--v<12 hex>`. */
  lbl: string;
  /** The room session (viewer). */
  sid: string;
  /** The copy the runner's route leads to. */
  cid: string;
  /** The viewer's percent-encoded name and company, for a personalised copy only (personalClaims). */
  vn?: string;
  vc?: string;
  /** Room for more: the data plane ignores claims it does not read. */
  [extra: string]: string | number | undefined;
}

/**
 * The claims the data plane turns back into a personalised copy's headers (personal.ts), each its
 * header's value as the room's proxy would send it: percent-encoded, so only `A-Z a-z 0-9 - _ . ! ~
 * * ' ( ) %` (the data plane sends nothing else on). A value is ≤ 80 characters before encoding
 * (ViewerCompany, the session's name), ≤ 9 bytes each after (3 UTF-8 bytes × `%XX`): 720.
 */
const PERSONAL_CLAIMS = { vn: VIEWER_NAME_HEADER, vc: VIEWER_COMPANY_HEADER } as const;
const personalClaimMaxChars = 720;

/** The token claims for `personalHeaders(...)`'s answer: none for a build that does not personalise. */
export function personalClaims(headers: Record<string, string>): Pick<CopyTokenClaims, 'vn' | 'vc'> {
  const claims: Record<string, string> = {};
  for (const [claim, header] of Object.entries(PERSONAL_CLAIMS)) {
    const value = headers[header];
    // Longer than any stored name can encode to: left out rather than let it crowd the cookie (4 KB).
    if (value && value.length <= personalClaimMaxChars) claims[claim] = value;
  }
  return claims;
}

const b64 = (value: object | Buffer) => (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');
const HEADER = b64({ alg: 'HS256', typ: 'JWT' });

/** `key` is COPY_TOKEN_KEY as configured (hex): HAProxy is given the same text, and uses its bytes as the HMAC key. */
export function copyTokens(key: string) {
  const mac = (data: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(data).digest();
  return {
    sign(claims: CopyTokenClaims, now = Date.now()): string {
      const iat = Math.floor(now / 1000);
      const body = `${HEADER}.${b64({ ...claims, iat, exp: iat + copyTokenSeconds })}`;
      return `${body}.${b64(mac(body))}`;
    },
    /** The cookie's Set-Cookie attributes: as the view cookie's (framed, partitioned), lapsing before the token. */
    cookieOptions: {
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'none' as const,
      partitioned: true,
      maxAge: copyTokenSeconds - cookieMarginSeconds,
    },
  };
}
