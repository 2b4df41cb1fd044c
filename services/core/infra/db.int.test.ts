import { afterEach, describe, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { createSql, type Sql } from './db.js';

// The Postgres driver's transactions under a full pipeline (porsager/postgres#823, #1189):
// postgres.js 3.4.9 reserves a connection for `sql.begin` only when BEGIN leaves room in the
// connection's pipeline, so a BEGIN that fills it went out on a connection still shared with
// other queries: the transaction failed with UNSAFE_TRANSACTION (a runner died of it under a
// 10,000-viewer burst, docs/scale.md), and the queries after it ran inside that transaction.
// patches/postgres+3.4.9.patch reserves the connection whenever BEGIN is written.

const env = testEnv();
let sql: Sql | null = null;
afterEach(async () => {
  await sql?.end({ timeout: 5 });
  sql = null;
});

describe('a transaction begun on a connection whose pipeline BEGIN fills', () => {
  it('runs on its own connection, and what comes after it runs outside it', async () => {
    // One connection, so the pipeline is the one every query meets (with more, the driver opens
    // another before it fills one: the boundary is met only under load).
    sql = createSql(env.DATABASE_URL, { max: 1 });
    await sql`select 1`; // the connection open, so what follows is pipelined on it
    // 100 queries on that connection: the first running, 99 waiting in its pipeline of 100; BEGIN
    // takes the pipeline's last place.
    const before = Array.from({ length: 100 }, () => sql!`select pg_sleep(0.001)`.execute());
    const transaction = sql.begin(async (tx) => {
      const [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      // Inside a transaction now() is its start: a later statement's own timestamp differs.
      await tx`select pg_sleep(0.01)`;
      const [{ inside }] = await tx<{ inside: boolean }[]>`select now() <> statement_timestamp() as inside`;
      return { pid, inside };
    });
    await Promise.all(before);
    const result = await transaction;
    expect(result.inside).toBe(true);
    // After it, nothing is left open: no connection idles inside a transaction.
    const [{ open }] = await sql<{ open: boolean }[]>`
      select exists (select 1 from pg_stat_activity where pid = ${result.pid} and state like 'idle in transaction%') as open`;
    expect(open).toBe(false);
    const [{ outside }] = await sql<{ outside: boolean }[]>`select pg_current_xact_id_if_assigned() is null as outside`;
    expect(outside).toBe(true);
  });
});

// A transaction's connection cut under it (Postgres restarted, its backend terminated): the query
// in flight fails, and the driver's own ROLLBACK is then written to a connection with no socket.
// postgres.js 3.4.9 throws that from a timer (porsager/postgres#1208), where no caller can catch
// it: the process died, a runner host with it, during a Postgres restart mid-burst (issue 46,
// test/faults/usage-through-restarts.test.ts). patches/postgres+3.4.9.patch settles the write
// with CONNECTION_CLOSED instead.
describe('a transaction whose connection is cut under it', () => {
  it('fails as the caller sees it, nothing thrown where no one can catch it, and the pool answers again', async () => {
    sql = createSql(env.DATABASE_URL, { max: 2 });
    const other = createSql(env.DATABASE_URL, { max: 1 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      let pid: number | null = null;
      const transaction = sql.begin(async (tx) => {
        [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
        await tx`select pg_sleep(5)`;
      });
      const failed = transaction.then(
        () => null,
        (err: Error & { code?: string }) => err.code ?? err.message,
      );
      while (pid === null) await new Promise((resolve) => setTimeout(resolve, 20));
      // Only this test's own backend, never anybody else's.
      await other`select pg_terminate_backend(${pid})`;
      expect(await failed).not.toBeNull();
      // The timers that wrote after the cut have run.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught.map((e) => (e as Error).message)).toEqual([]);
      const [{ one }] = await sql<{ one: number }[]>`select 1 as one`;
      expect(one).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
      await other.end({ timeout: 5 });
    }
  });
});
