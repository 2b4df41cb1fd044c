import { LRUCache } from 'lru-cache';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import { noteCaptureBlock } from '../../data/capture-blocks.sql.js';

// Whether the latest page a viewer's copy sent them stops the capture agent (capture-policy.ts),
// kept in capture_blocks for the room to read when a comment comes without a picture. Pages come
// often and the answer rarely changes, so a row is written only when the state differs from what
// this process last wrote for that session and origin, or that was long enough ago that another
// process may have written since.

/** How long a written state is trusted before the next page writes it again (ms). */
const trustedMs = 60_000;

export function createCaptureBlockNotes(deps: { sql: Sql; log: Logger }) {
  const written = new LRUCache<string, boolean>({ max: 20_000, ttl: trustedMs });
  // One write at a time, in the order pages came: two quick pages with different states must
  // leave the second one's.
  let queue: Promise<void> = Promise.resolve();

  return {
    /** Records the state of the page the session just got on `originLabel`; never waits for the database. */
    note(sessionId: string, originLabel: string, blocked: boolean): void {
      const key = `${sessionId} ${originLabel}`;
      if (written.get(key) === blocked) return;
      written.set(key, blocked);
      queue = queue
        .then(() => noteCaptureBlock(deps.sql, sessionId, originLabel, blocked))
        .catch((err) => {
          // Not known to be written: the next page tries again.
          if (written.get(key) === blocked) written.delete(key);
          deps.log.warn({ err, sessionId, originLabel }, 'capture block not recorded');
        });
    },
    /** Resolves once every state noted so far is written (tests, shutdown). */
    settled: () => queue,
  };
}
