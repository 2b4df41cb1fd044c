import { setTimeout as sleep } from 'node:timers/promises';

/** The longest wait between tries of a write through a database outage; about 16 s of tries in all. */
const RETRY_MAX_MS = 8_000;

/**
 * A write tried again while the database is away (a restart cuts every connection for a second or
 * more), for what exists nowhere else once written: the engine forgets a removed unit, so the run
 * read from it is lost with a write lost to the outage (a fault test saw a billed copy with no
 * engine record after a Postgres restart mid-burst). Only for writes that keep once when made
 * twice (keepEngineRun, accountUnowned).
 */
export async function throughOutage<T>(write: () => Promise<T>): Promise<T> {
  for (let wait = 250; ; wait *= 2) {
    try {
      return await write();
    } catch (err) {
      if (wait > RETRY_MAX_MS) throw err;
      await sleep(wait);
    }
  }
}
