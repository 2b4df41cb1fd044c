import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { isStatus } from '../api/refusal-words.js';
import { api } from '../api/client.js';
import { useOp } from '../api/hooks.js';
import { Skeleton } from '../ui/Async.js';
import { Refusal } from '../ui/Refusal.js';
import { Nav } from './Nav.js';
import { WorkspaceSwitch } from './WorkspaceSwitch.js';

// The frame of every signed-in page: the workspace, the areas, who is signed in. A session that
// ends (signed out elsewhere, expired) sends the browser to sign in and back here after.

// Signing out reads nothing again (every read would answer 401 and race this page to /login).
const signOut = () => api.call('logout').finally(() => window.location.replace('/login'));

export function Layout({ children }: { children: ReactNode }) {
  const me = useOp('whoami');
  const [location] = useLocation();

  useEffect(() => {
    if (isStatus(me.error, 401)) window.location.replace(`/login?next=${encodeURIComponent(location)}`);
  }, [me.error, location]);

  return (
    <div className="shell">
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="wordmark">
          Demo rooms
        </Link>
        <WorkspaceSwitch />
        <div className="who">
          <Link href="/account" title="Your account">
            <span id="who">{me.data?.email ?? ''}</span>
          </Link>
          <button type="button" className="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <Nav />
      <main id="content" tabIndex={-1}>
        {/* The page waits for who is signed in (one small read): what it shows may depend on it
            (the name step), and content popping in above what is drawn would shift the page. */}
        {me.isError && !isStatus(me.error, 401) ? <Refusal error={me.error} /> : me.data ? children : <Skeleton />}
      </main>
    </div>
  );
}
