import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedBuildRecords, seedWorkspace } from '../../test/support/runner/seed.js';
import { copyById, insertCopy, transition } from './copies.sql.js';
import { endCopies } from './copy-end-writes.sql.js';
import { keepEngineRuns } from './usage-reconciliation.sql.js';

// A batch of ends in one statement: each live or queued copy ends once with its own reason and
// event under its new seq; a copy named twice, or already ended, moves and counts nothing more.

let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

describe('endCopies', () => {
  it('ends each copy once, with its reason and one event, and leaves an ended copy as it was', async () => {
    const b = await seedBuildRecords(sql, await seedWorkspace(sql));
    const copy = async (state: 'queued' | 'creating') =>
      insertCopy(sql, { id: randomUUID(), runnerId: 'r-ends', ...b, sessionId: randomUUID(), origin: 'viewer', state });
    const running = await copy('creating');
    await transition(sql, running.id, ['creating'], 'running', { event: 'ready' });
    const queued = await copy('queued');
    const over = await copy('creating');
    await transition(sql, over.id, ['creating'], 'ended', { set: { endReason: 'left' }, event: 'stop' });

    const moved = await endCopies(sql, [
      { id: running.id, reason: 'left', kind: 'stop', detail: 'left' },
      { id: queued.id, reason: 'idle', kind: 'stop', detail: 'idle' },
      { id: running.id, reason: 'build-changed', kind: 'stop', detail: 'build-changed' },
      { id: over.id, reason: 'idle', kind: 'fail', detail: 'again' },
    ]);

    expect(moved.map((r) => r.id).sort()).toEqual([running.id, queued.id].sort());
    for (const id of [running.id, queued.id]) {
      const row = (await copyById(sql, id))!;
      expect(row.state).toBe('ended');
      expect(row.endedAt).not.toBeNull();
      const events = await sql<{ kind: string; seq: number }[]>`select kind, seq from copy_events where copy_id = ${id} and kind = 'stop'`;
      expect(events).toEqual([{ kind: 'stop', seq: row.seq }]);
    }
    expect((await copyById(sql, running.id))!.endReason).toBe('left');
    expect((await copyById(sql, queued.id))!.endReason).toBe('idle');
    expect((await copyById(sql, over.id))!.endReason).toBe('left');
    expect(await sql`select 1 from copy_events where copy_id = ${over.id} and kind = 'fail'`).toHaveLength(0);
  });

  it('keeps the engine records of a batch, each copy as two calls in turn would, and dates each stop at its finish', async () => {
    const b = await seedBuildRecords(sql, await seedWorkspace(sql));
    const started = new Date(Date.now() - 60_000);
    const finished = new Date(Date.now() - 30_000);
    const ended = [];
    for (let i = 0; i < 2; i++) {
      const row = await insertCopy(sql, {
        id: randomUUID(),
        runnerId: 'r-ends',
        ...b,
        sessionId: randomUUID(),
        origin: 'viewer',
        state: 'creating',
      });
      await transition(sql, row.id, ['creating'], 'running', { event: 'start', at: started });
      ended.push((await endCopies(sql, [{ id: row.id, reason: 'left', kind: 'stop', detail: 'left' }]))[0]!);
    }
    const [a, c] = ended;
    await keepEngineRuns(sql, [
      // Read before the removal found nothing yet; the removal then read the run: the run is kept.
      { copyId: a.id, run: null, closingSeq: a.seq },
      { copyId: a.id, run: { startedAt: started, finishedAt: finished }, closingSeq: a.seq },
      { copyId: c.id, run: { startedAt: started, finishedAt: finished }, closingSeq: c.seq },
      // A later, different record does not replace the first one kept.
      { copyId: c.id, run: { startedAt: new Date(), finishedAt: new Date() }, closingSeq: c.seq },
    ]);
    for (const copy of [a, c]) {
      const [kept] = await sql<{ engineStartedAt: Date; engineFinishedAt: Date }[]>`
        select engine_started_at, engine_finished_at from runner_copies where id = ${copy.id}`;
      expect(kept.engineStartedAt.getTime()).toBe(started.getTime());
      expect(kept.engineFinishedAt.getTime()).toBe(finished.getTime());
      const [stop] = await sql<
        { at: Date }[]
      >`select at from copy_events where copy_id = ${copy.id} and seq = ${copy.seq} and kind = 'stop'`;
      expect(stop.at.getTime()).toBe(finished.getTime());
    }
  });
});
