import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { insertCopy, transition } from '../../services/data/copies.sql.js';

// Nothing is counted twice: a change of state applied twice (a retry, a reconcile racing an
// engine event, two runners) moves the record and writes its usage event once.
let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 4 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

describe('copy transitions', () => {
  it('moves a copy and writes its event once however often, or however concurrently, it is asked', async () => {
    const workspaceId = await seedWorkspace(sql);
    const [p] = await sql<
      { id: string }[]
    >`insert into projects (workspace_id, slug, name) values (${workspaceId}, ${`t-${randomUUID().slice(0, 12)}`}, 'T') returning id`;
    const copy = await insertCopy(sql, {
      id: randomUUID(),
      runnerId: 'transitions',
      workspaceId,
      projectId: p.id,
      buildId: randomUUID(),
      sessionId: randomUUID(),
      origin: 'viewer',
      state: 'creating',
    });
    await transition(sql, copy.id, ['creating'], 'starting', { set: { containerId: 'c1' } });
    await transition(sql, copy.id, ['starting'], 'running', { now: ['readyAt'], event: 'ready', coldStartMs: 120 });
    const stops = await Promise.all(
      Array.from({ length: 5 }, () =>
        transition(sql, copy.id, ['running', 'paused'], 'ended', { set: { endReason: 'left' }, event: 'stop' }),
      ),
    );
    expect(stops.filter(Boolean)).toHaveLength(1);
    expect(await transition(sql, copy.id, ['running'], 'paused', { event: 'pause' })).toBeNull();
    const events = await sql<{ kind: string; seq: number }[]>`select kind, seq from copy_events where copy_id = ${copy.id} order by seq`;
    expect(events).toEqual([
      { kind: 'ready', seq: 2 },
      { kind: 'stop', seq: 3 },
    ]);
  });

  it('keeps one live copy per session', async () => {
    const workspaceId = await seedWorkspace(sql);
    const [p] = await sql<
      { id: string }[]
    >`insert into projects (workspace_id, slug, name) values (${workspaceId}, ${`t-${randomUUID().slice(0, 12)}`}, 'T') returning id`;
    const session = randomUUID();
    const row = {
      runnerId: 'transitions',
      workspaceId,
      projectId: p.id,
      buildId: randomUUID(),
      sessionId: session,
      origin: 'viewer' as const,
      state: 'queued' as const,
    };
    await insertCopy(sql, { ...row, id: randomUUID() });
    await expect(insertCopy(sql, { ...row, id: randomUUID() })).rejects.toThrow(/runner_copies_session/);
  });
});
