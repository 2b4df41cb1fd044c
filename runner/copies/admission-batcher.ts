import type { Sql } from '../../services/core/infra/db.js';
import { AGAIN, groupCommit } from '../../services/core/infra/group-commit.js';
import type { HostScope } from '../service/runner-context.js';
import { admitViewers, type Ask } from './admission-batch.js';
import type { Admission } from './copy-admission.js';

// Group commit for arrivals (services/core/infra/group-commit.ts): one batch of this host's arrivals is
// decided at a time (admission-batch.ts); whoever arrives while it is decided joins the next, so
// a quiet host decides a viewer at once and a crowd is decided a few hundred at a time. Waiting
// viewers wait in memory, not on a database connection: one connection a host decides them all.
// A batch that fails is decided again one viewer at a time, so one viewer's bad ask (a project
// deleted a moment ago) fails only their own request, never another tenant's. A batch does not
// wait for a workspace another host is deciding: those asks go in the next batch (busy), so the
// hosts of a fleet decide side by side instead of one batch after another.

/** Times an ask may find its workspace held by another host before its batch waits for the locks. */
const BUSY_BEFORE_WAITING = 3;

export interface AdmissionBatcher {
  admit(ask: Ask): Promise<Admission>;
  /** Decisions made and batches run since start (for the bench and the metrics). */
  readonly stats: { decisions: number; batches: number; largest: number };
}

export function createAdmissionBatcher(sql: Sql, host: HostScope, opts: { maxBatch?: number } = {}): AdmissionBatcher & { close(): void } {
  // A connection of its own out of the pool: under a crowd the pool's queue is thousands of the
  // starts' and the viewers' reads deep, and a batch waiting its turn behind them is every
  // arrival of the host waiting. Given back when it fails, and taken again for the next batch.
  let own: Sql | null = null;
  const connection = async () => (own ??= (await sql.reserve()) as unknown as Sql);
  const drop = () => {
    (own as unknown as { release(): void } | null)?.release();
    own = null;
  };
  // How often each ask waiting here has been answered busy (its workspace another host's).
  const busyTimes = new WeakMap<Ask, number>();
  const admit = groupCommit(
    async (asks: Ask[]) => {
      // Side by side with the other hosts, unless an ask has found its workspace taken too often:
      // then the batch waits for the locks, in line before any later try (migrations/00043).
      const wait = asks.some((a) => (busyTimes.get(a) ?? 0) >= BUSY_BEFORE_WAITING);
      let answers: Awaited<ReturnType<typeof admitViewers>>;
      try {
        answers = await admitViewers(await connection(), host, asks, wait);
      } catch (err) {
        drop();
        throw err;
      }
      return answers.map((a, i) => {
        if (a.kind !== 'busy') return a;
        busyTimes.set(asks[i], (busyTimes.get(asks[i]) ?? 0) + 1);
        return AGAIN;
      });
    },
    { maxBatch: opts.maxBatch ?? 500 },
  );

  return {
    stats: {
      get decisions() {
        return admit.stats.items;
      },
      get batches() {
        return admit.stats.batches;
      },
      get largest() {
        return admit.stats.largest;
      },
    },
    /** Gives the batcher's own connection back to the pool. */
    close: drop,
    admit,
  };
}
