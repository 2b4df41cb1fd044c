import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedBuildRecords, seedWorkspace } from '../../test/support/runner/seed.js';
import { copyById, insertCopy, sessionCopies, transition } from './copies.sql.js';

// A batch of sessions' reads in one statement, as a host's long-polls and re-asks are batched:
// each answered in the order asked, a queued copy with its place, each touch recorded as asked
// (none, seen, active: within its floor nothing is written), a session asked twice read once,
// and a session with no copy answered null, without failing the rest of the batch.

let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

async function copyIn(b: { workspaceId: string; projectId: string; buildId: string }, state: 'queued' | 'running', old = true) {
  const sessionId = randomUUID();
  const row = await insertCopy(sql, {
    id: randomUUID(),
    runnerId: `r-${randomUUID().slice(0, 8)}`,
    ...b,
    sessionId,
    origin: 'viewer',
    state: state === 'queued' ? 'queued' : 'creating',
  });
  if (state === 'running') await transition(sql, row.id, ['creating'], 'running', { now: ['readyAt'] });
  // Marks an hour old: any floor is past, so a touch writes.
  if (old)
    await sql`update runner_copies set seen_at = now() - interval '1 hour', active_at = now() - interval '1 hour' where id = ${row.id}`;
  return { sessionId, id: row.id };
}

describe('sessionCopies', () => {
  it('answers a batch in order, with places, touches as asked, duplicates once and nulls for none', async () => {
    const b = await seedBuildRecords(sql, await seedWorkspace(sql));
    const first = await copyIn(b, 'queued');
    const second = await copyIn(b, 'queued');
    const active = await copyIn(b, 'running');
    const seen = await copyIn(b, 'running');
    const untouched = await copyIn(b, 'running');
    const fresh = await copyIn(b, 'running', false);
    const nobody = randomUUID();

    const rows = await sessionCopies(sql, [
      { sessionId: second.sessionId, touch: 'seen', floorMs: 2_000 },
      { sessionId: nobody, touch: 'active', floorMs: 2_000 },
      { sessionId: active.sessionId, touch: 'none', floorMs: 2_000 },
      { sessionId: active.sessionId, touch: 'active', floorMs: 2_000 },
      { sessionId: seen.sessionId, touch: 'seen', floorMs: 2_000 },
      { sessionId: untouched.sessionId, touch: 'none', floorMs: 2_000 },
      { sessionId: fresh.sessionId, touch: 'active', floorMs: 60_000 },
      { sessionId: first.sessionId, touch: 'none', floorMs: 2_000 },
    ]);

    expect(rows.map((r) => r?.id ?? null)).toEqual([second.id, null, active.id, active.id, seen.id, untouched.id, fresh.id, first.id]);
    expect(rows[0]?.place).toBe(2);
    expect(rows[7]?.place).toBe(1);
    expect(rows[2]?.place ?? null).toBeNull();

    const recent = (d: Date | null) => d !== null && Date.now() - d.getTime() < 60_000;
    const reread = async (id: string) => (await copyById(sql, id))!;
    expect(recent((await reread(active.id)).seenAt)).toBe(true);
    expect(recent((await reread(active.id)).activeAt)).toBe(true);
    expect(recent((await reread(seen.id)).seenAt)).toBe(true);
    expect(recent((await reread(seen.id)).activeAt)).toBe(false);
    expect(recent((await reread(untouched.id)).seenAt)).toBe(false);
    expect(recent((await reread(second.id)).seenAt)).toBe(true);
    // Marked just now, within its 60 s floor: no write, the marks stay as they were.
    const before = await reread(fresh.id);
    await sessionCopies(sql, [{ sessionId: fresh.sessionId, touch: 'active', floorMs: 60_000 }]);
    expect((await reread(fresh.id)).seq).toBe(before.seq);
    expect((await reread(fresh.id)).seenAt.getTime()).toBe(before.seenAt.getTime());
  });
});
