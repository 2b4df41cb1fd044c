import type { Sql } from '../../services/core/db.js';
import type { HostScope } from '../runner-context.js';
import { admitViewers, type Ask } from './admission-batch.js';
import type { Admission } from './copy-admission.js';

// Group commit for arrivals: one batch of this host's arrivals is decided at a time
// (admission-batch.ts); whoever arrives while it is decided joins the next, so a quiet host
// decides a viewer at once and a crowd is decided a few hundred at a time. Waiting viewers wait
// here, in memory, not on a database connection: one connection a host decides them all. A batch
// that fails is decided again one viewer at a time, so one viewer's bad ask (a project deleted a
// moment ago) fails only their own request, never another tenant's.

export interface AdmissionBatcher {
  admit(ask: Ask): Promise<Admission>;
  /** Decisions made and batches run since start (for the bench and the metrics). */
  readonly stats: { decisions: number; batches: number; largest: number };
}

export function createAdmissionBatcher(sql: Sql, host: HostScope, opts: { maxBatch?: number } = {}): AdmissionBatcher & { close(): void } {
  const maxBatch = opts.maxBatch ?? 500;
  const stats = { decisions: 0, batches: 0, largest: 0 };
  let waiting: { ask: Ask; resolve: (a: Admission) => void; reject: (e: unknown) => void }[] = [];
  let deciding = false;
  // A connection of its own out of the pool: under a crowd the pool's queue is thousands of the
  // starts' and the viewers' reads deep, and a batch waiting its turn behind them is every
  // arrival of the host waiting. Given back when it fails, and taken again for the next batch.
  let own: Sql | null = null;
  const connection = async () => (own ??= (await sql.reserve()) as unknown as Sql);
  const drop = () => {
    (own as unknown as { release(): void } | null)?.release();
    own = null;
  };

  async function drain() {
    deciding = true;
    try {
      while (waiting.length) {
        const batch = waiting.slice(0, maxBatch);
        waiting = waiting.slice(batch.length);
        stats.batches++;
        stats.largest = Math.max(stats.largest, batch.length);
        try {
          const out = await admitViewers(
            await connection(),
            host,
            batch.map((w) => w.ask),
          );
          batch.forEach((w, i) => w.resolve(out[i]));
        } catch (err) {
          drop();
          if (batch.length === 1) batch[0].reject(err);
          else await oneByOne(batch);
        }
        stats.decisions += batch.length;
      }
    } finally {
      deciding = false;
    }
  }

  async function oneByOne(batch: typeof waiting) {
    for (const w of batch) await admitViewers(sql, host, [w.ask]).then(([a]) => w.resolve(a), w.reject);
  }

  return {
    stats,
    /** Gives the batcher's own connection back to the pool. */
    close: drop,
    admit(ask) {
      return new Promise((resolve, reject) => {
        waiting.push({ ask, resolve, reject });
        if (!deciding) void drain();
      });
    },
  };
}
