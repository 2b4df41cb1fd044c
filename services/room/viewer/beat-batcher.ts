import type { Sql } from '../../core/infra/db.js';
import { recordBeats, type BeatOutcome, type QueuedBeat } from '../../data/beat-batch.sql.js';

// Group commit for the shell's beacons: the beats that arrive within a few milliseconds of each
// other are written together (services/data/beat-batch.sql.ts), and each request is answered
// only once its batch is committed, so nothing a viewer's shell was told is kept can be lost to
// a crash. A beat waits at most `windowMs`; a full batch goes at once. A batch that fails is
// retried beat by beat, so one bad beat fails only itself.

export interface BeatBatcher {
  add(beat: QueuedBeat): Promise<BeatOutcome>;
}

export function beatBatcher(sql: Sql, opts: { windowMs?: number; maxBatch?: number } = {}): BeatBatcher {
  const windowMs = opts.windowMs ?? 20;
  const maxBatch = opts.maxBatch ?? 250;
  let waiting: { beat: QueuedBeat; resolve: (o: BeatOutcome) => void; reject: (e: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = waiting;
    waiting = [];
    recordBeats(
      sql,
      batch.map((w) => w.beat),
    ).then(
      (outcomes) => batch.forEach((w, i) => w.resolve(outcomes[i])),
      (err) => (batch.length === 1 ? batch[0].reject(err) : oneByOne(batch)),
    );
  }

  /**
   * A batch that failed is written again one beat at a time, so a beat Postgres refuses fails
   * only its own request, never the viewers (of any room) who were batched with it. Each is still
   * answered only once its own write is committed.
   */
  function oneByOne(batch: typeof waiting) {
    for (const w of batch) recordBeats(sql, [w.beat]).then(([outcome]) => w.resolve(outcome), w.reject);
  }

  return {
    add(beat) {
      return new Promise((resolve, reject) => {
        waiting.push({ beat, resolve, reject });
        if (waiting.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, windowMs);
      });
    },
  };
}
