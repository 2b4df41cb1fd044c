// Where a page may send the browser after sign-in (`/login?next=`): a path on this origin, never
// another site (`//evil.example`, `/\evil.example`), so sign-in is no open redirect. The api checks
// it when it sends a signed-out browser to /login, the web app again before it follows it.
export function samePath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\s\\]/.test(next))
    return '/';
  return next.slice(0, 500);
}
