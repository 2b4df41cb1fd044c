import { useEffect } from 'react';
import { Link, useLocation } from 'wouter';
import { useOp } from '../api/hooks.js';

// The areas, in the order a builder meets them. Keyboard: every entry is a link in tab order, and
// `g` then a letter jumps (g p projects, g b board, g a analytics…), as in Linear.

export const AREAS = [
  { href: '/', label: 'Projects', key: 'p', match: (l: string) => l === '/' || l.startsWith('/projects') },
  { href: '/pipeline', label: 'Pipeline', key: 'b' },
  { href: '/analytics', label: 'Analytics', key: 'a', match: (l: string) => l.startsWith('/analytics') || l.startsWith('/journey') },
  { href: '/usage', label: 'Usage', key: 'u' },
  { href: '/team', label: 'Team', key: 't' },
  { href: '/brand', label: 'Brand', key: 'r' },
  { href: '/community', label: 'Community', key: 'c' },
  { href: '/webhooks', label: 'Webhooks', key: 'w' },
  { href: '/alerts', label: 'Alerts', key: 'l' },
  { href: '/account', label: 'Account', key: 'm' },
] as const;

export function Nav() {
  const [location, navigate] = useLocation();
  useGoKeys(navigate);
  // The unread count beside Alerts, read again each minute (issue 34).
  const alerts = useOp('listAlerts', undefined, { refetchInterval: 60_000 });
  const unread = alerts.data?.unread ?? 0;
  return (
    <nav className="areas" aria-label="Areas">
      <ul>
        {AREAS.map((a) => {
          const current = 'match' in a ? a.match(location) : location.startsWith(a.href);
          return (
            <li key={a.href}>
              <Link href={a.href} aria-current={current ? 'page' : undefined}>
                {a.label}
                {a.href === '/alerts' && unread > 0 && (
                  <>
                    {' '}
                    <span className="badge" data-testid="nav-unread">
                      {unread}
                    </span>
                    <span className="sr-only"> unread</span>
                  </>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function useGoKeys(navigate: (to: string) => void) {
  useEffect(() => {
    let armed = 0;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.metaKey || e.ctrlKey || e.altKey || t.closest('input, textarea, select, [contenteditable]')) return;
      if (e.key === 'g') return void (armed = Date.now());
      if (Date.now() - armed > 1000) return;
      const to = AREAS.find((a) => a.key === e.key);
      if (to) navigate(to.href);
      armed = 0;
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);
}
