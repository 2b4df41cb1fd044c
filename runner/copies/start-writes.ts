import type { Sql } from '../../services/core/infra/db.js';
import { groupCommit, oncePerClient } from '../../services/core/infra/group-commit.js';
import { recordContainers, recordReady, recordStarted, type ReadyCopy } from '../../services/data/copy-start-writes.sql.js';

// A start's three writes (made, running, ready: copy-starter.ts), group-committed per host: under
// a crowd a host starts dozens of copies at once (RUNNER_START_CONCURRENCY), and each start's
// writes joined the pool's queue behind every viewer's read; now the starts waiting on the same
// write share one statement (services/data/copy-start-writes.sql.ts). A quiet host still writes at
// once. One set per database client, so the runner's host and a test's host each keep their own.

export interface StartWrites {
  /** creating → starting with the engine's handle; false when the copy was withdrawn meanwhile. */
  made(id: string, containerId: string): Promise<boolean>;
  /** The engine runs it (since `at`, now by default): started_at and the `start` event. */
  started(id: string, at?: Date): Promise<void>;
  /** Healthy: running (or warm); null when it was withdrawn meanwhile. */
  ready(copy: ReadyCopy): Promise<{ sessionId: string | null } | null>;
  /** Writes asked for and statements run since start, all three kinds together. */
  stats(): { writes: number; statements: number };
}

export const startWritesOf = oncePerClient((sql: Sql): StartWrites => {
  const made = groupCommit(async (items: { id: string; containerId: string }[]) => {
    const moved = await recordContainers(sql, items);
    return items.map((i) => moved.has(i.id));
  });
  const started = groupCommit(async (items: { id: string; at: Date }[]) => {
    await recordStarted(sql, items);
    return items.map(() => undefined);
  });
  const ready = groupCommit(async (items: ReadyCopy[]) => {
    const moved = await recordReady(sql, items);
    return items.map((i) => moved.get(i.id) ?? null);
  });
  const all = [made, started, ready];
  return {
    made: (id, containerId) => made({ id, containerId }),
    started: (id, at = new Date()) => started({ id, at }),
    ready,
    stats: () => ({
      writes: all.reduce((n, w) => n + w.stats.items, 0),
      statements: all.reduce((n, w) => n + w.stats.batches, 0),
    }),
  };
});
