import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedBuildRecords, seedWorkspace } from '../../test/support/runner/seed.js';
import { copyById, insertCopy, transition } from './copies.sql.js';
import { endCopies } from './copy-end-writes.sql.js';

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
});
