import type { IncomingHttpHeaders } from 'node:http';

// Headers on a copy's answers that are the room's to decide, not the demo's. The copy is the
// builder's code: left alone it could let any site frame the viewer's copy (X-Frame-Options,
// CSP frame-ancestors), set a cookie for the parent domain that every other viewer's copy origin
// and the project's static origin would then receive (Set-Cookie Domain=), or wipe the cookies
// of every origin under that domain (Clear-Site-Data "cookies" acts on the registrable domain).
// And no answer of a copy is sniffed into another type than it says (nosniff, as static builds').

/** The copy's response headers, rewritten in place so that the room's policy holds. */
export function enforceRoomHeaders(headers: IncomingHttpHeaders, room: { frameAncestors: string; reservedCookies: string[] }): void {
  delete headers['x-frame-options'];
  headers['x-content-type-options'] = 'nosniff';

  // The copy's own policy keeps its other directives; its frame-ancestors go, and the room's is
  // added as a policy of its own (browsers enforce every policy given, so the copy cannot widen it).
  const policies = [headers['content-security-policy'] ?? []]
    .flat()
    .flatMap((p) => p.split(','))
    .map((p) =>
      p
        .split(';')
        .map((d) => d.trim())
        .filter((d) => d && !/^frame-ancestors(\s|$)/i.test(d))
        .join('; '),
    )
    .filter(Boolean);
  headers['content-security-policy'] = [...policies, `frame-ancestors ${room.frameAncestors}`];

  const cookies = headers['set-cookie'];
  if (cookies) {
    const kept = cookies.filter((c) => !room.reservedCookies.includes(c.slice(0, c.indexOf('=')).trim())).map(hostOnly);
    if (kept.length) headers['set-cookie'] = kept;
    else delete headers['set-cookie'];
  }

  const clear = headers['clear-site-data'];
  if (clear !== undefined) {
    // "cache", "storage" and "executionContexts" act on the copy's own origin and stay.
    const own = String(clear)
      .split(',')
      .map((t) => t.trim())
      .filter((t) => /^"(cache|storage|executionContexts)"$/.test(t));
    if (own.length) headers['clear-site-data'] = own.join(', ');
    else delete headers['clear-site-data'];
  }
}

/** A Set-Cookie without its Domain attribute: a cookie for the copy's host alone. */
function hostOnly(cookie: string): string {
  return cookie
    .split(';')
    .filter((part, i) => i === 0 || !/^\s*domain\s*=/i.test(part))
    .join(';');
}
