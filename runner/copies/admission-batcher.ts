import type { Sql } from '../../services/core/infra/db.js';
import { groupCommit } from '../../services/core/infra/group-commit.js';
import type { HostScope } from '../service/runner-context.js';
import { admitViewers, type Ask } from './admission-batch.js';
import type { Admission } from './copy-admission.js';

// Group commit for arrivals (services/core/infra/group-commit.ts): one batch of this host's arrivals is
// decided at a time (admission-batch.ts); whoever arrives while it is decided joins the next, so
// a quiet host decides a viewer at once and a crowd is decided a few hundred at a time. Waiting
// viewers wait in memory, not on a database connection: one connection a host decides them all.
// A batch that fails is decided again one viewer at a time, so one viewer's bad ask (a project
// deleted a moment ago) fails only their own request, never another tenant's.

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
  const admit = groupCommit(
    async (asks: Ask[]) => {
      try {
        return await admitViewers(await connection(), host, asks);
      } catch (err) {
        drop();
        throw err;
      }
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
