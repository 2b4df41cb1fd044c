import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { insertCopy, transition } from '../../services/data/copies.sql.js';
import { createSession } from '../../services/data/room-sessions.sql.js';
import { seedBuildRecords, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { testEnv } from '../../test/support/services.js';
import { startWritesOf } from './start-writes.js';

// A crowd's starts share their writes: forty copies started at once are recorded in a few
// statements, each copy exactly as one start at a time records it (states, seq, events in order),
// and a copy withdrawn meanwhile is left as it was.

let sql: Sql;
let build: Seeded;
beforeAll(async () => {
  sql = createSql(testEnv().DATABASE_URL, { max: 4 });
  build = await seedBuildRecords(sql, await seedWorkspace(sql));
});
afterAll(async () => {
  await sql?.end({ timeout: 2 });
});

async function creatingCopy(runnerId: string, withSession: boolean) {
  const sessionId = withSession
    ? (await createSession(sql, { ...build, linkId: null, entryKey: randomUUID(), preview: true })).session.id
    : null;
  const row = await insertCopy(sql, {
    id: randomUUID(),
    runnerId,
    ...build,
    sessionId,
    origin: withSession ? 'viewer' : 'warm',
    state: 'creating',
  });
  return { id: row.id, sessionId };
}

describe("a crowd's start writes", () => {
  it('records forty starts in a few statements, each as one start alone would, and leaves a withdrawn copy alone', async () => {
    const runnerId = `sw-${randomUUID().slice(0, 8)}`;
    const copies = await Promise.all(Array.from({ length: 40 }, (_, i) => creatingCopy(runnerId, i % 4 !== 0)));
    const withdrawn = copies[1];
    await transition(sql, withdrawn.id, ['creating'], 'ended', { set: { endReason: 'left' } });

    const writes = startWritesOf(sql);
    const outcomes = await Promise.all(
      copies.map(async (c, i) => {
        if (!(await writes.made(c.id, `container-${i}`))) return 'withdrawn';
        await writes.started(c.id);
        const ready = await writes.ready({ id: c.id, host: `10.213.0.${i + 2}`, port: 3000, coldStartMs: 100 + i, phases: { healthy: i } });
        return ready;
      }),
    );
    expect(outcomes[1]).toBe('withdrawn');
    for (const [i, c] of copies.entries()) if (i !== 1) expect(outcomes[i]).toEqual({ sessionId: c.sessionId });

    const rows = await sql<
      { id: string; state: string; seq: number; containerId: string | null; host: string | null; coldStartMs: number | null }[]
    >`
      select id, state, seq, container_id, host, cold_start_ms from runner_copies where runner_id = ${runnerId}`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [i, c] of copies.entries()) {
      const row = byId.get(c.id)!;
      if (i === 1) {
        expect(row).toMatchObject({ state: 'ended', containerId: null });
        continue;
      }
      expect(row).toMatchObject({
        state: c.sessionId ? 'running' : 'warm',
        containerId: `container-${i}`,
        host: `10.213.0.${i + 2}`,
        coldStartMs: 100 + i,
      });
    }
    const events = await sql<{ copyId: string; kind: string; seq: number; coldStartMs: number | null }[]>`
      select copy_id, kind, seq, cold_start_ms from copy_events where copy_id = any(${copies.map((c) => c.id)}) order by copy_id, seq`;
    for (const [i, c] of copies.entries()) {
      const mine = events.filter((e) => e.copyId === c.id).map((e) => [e.kind, e.coldStartMs]);
      expect(mine).toEqual(
        i === 1
          ? []
          : [
              ['start', null],
              ['ready', 100 + i],
            ],
      );
    }
    // Far fewer statements than writes: those asked while one was written went together.
    const { writes: asked, statements } = writes.stats();
    expect(asked).toBe(40 + 39 * 2);
    expect(statements).toBeLessThan(20);
  });
});
