import type { Logger } from '../../core/infra/log.js';
import type { CopyProxy } from './copy-proxy.js';
import type { Standing, StandingCache } from '../standing-cache.js';

// A viewer's open WebSockets outlive the check made when they opened: a socket opened before a
// revoke would otherwise stay up (and keep the copy counted active by its ticks) for as long as
// the page stays open. The room re-reads the standing of every session with an open socket every
// `everyMs` from the shared database (the api that revoked may be another process), through the
// standing cache (fresh every `standingMs`, standing-cache.ts), and closes the sockets of a session
// no longer allowed. A socket therefore closes at most standingMs + everyMs + one query after the
// revoke, pause, takedown or deletion: about 4 s.

export const everyMs = 1_000;

/** Close code and reason a viewer's page reads as "you may no longer use this demo" (4403: the room's 403). */
export const noLongerAllowed = { code: 4403, reason: 'no longer allowed' } as const;

/** Whether a session may still reach a copy on the copy origin of `slug`. */
export const mayUseCopy = (standing: Standing, slug: string) =>
  Boolean(standing && standing.slug === slug && standing.kind === 'container' && !standing.ownerPaused);

export function watchSocketStandings(deps: {
  proxy: CopyProxy;
  standings: StandingCache;
  slugOf: (sessionId: string) => string | undefined;
  log: Logger;
}) {
  let running = false;
  const timer = setInterval(() => {
    // One pass at a time: a slow database must not stack passes up.
    if (running) return;
    running = true;
    void pass()
      .catch((err) => deps.log.error({ err }, 'socket standing check failed'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();

  async function pass() {
    for (const sessionId of deps.proxy.sessionsWithSockets()) {
      const slug = deps.slugOf(sessionId);
      if (slug && mayUseCopy(await deps.standings.get(sessionId), slug)) continue;
      const closed = deps.proxy.closeSession(sessionId, noLongerAllowed.code, noLongerAllowed.reason);
      if (closed) deps.log.info({ sessionId, sockets: closed }, 'closed the WebSockets of a session no longer allowed');
    }
  }

  return { stop: () => clearInterval(timer) };
}
