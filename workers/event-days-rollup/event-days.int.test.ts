import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { runJob } from '../../services/core/infra/jobs.js';
import { createLogger } from '../../services/core/infra/log.js';
import { createQueues, type Queues } from '../../services/core/infra/queues.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { dayOf, rolledDays } from '../../services/data/event-days.sql.js';
import { recordEvents } from '../../services/data/room-events.sql.js';
import { testEnv } from '../../test/support/services.js';
import { buildWorkers, type WorkersApp } from '../app.js';

// event-days.rollup through a real BullMQ queue and worker: a day's rows written and marked, the
// scheduled form (no day) rolling yesterday, and a bad payload refused without retries.

const Rolled = z.object({ days: z.array(z.string()), rows: z.number() });

let sql: Sql;
let queues: Queues;
let workers: WorkersApp;
beforeAll(() => {
  const config = loadConfig({
    ...testEnv(),
    LOG_LEVEL: 'silent',
    QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}`,
  } as unknown as NodeJS.ProcessEnv);
  sql = createSql(config.DATABASE_URL, { max: 2 });
  queues = createQueues(config);
  workers = buildWorkers(
    { config, sql, storage: createStorage(config), log: createLogger({ name: 'event-days-test', level: 'silent' }) },
    { queues: ['event-days.rollup'] },
  );
});
afterAll(async () => {
  await workers.close();
  await queues.close();
  await sql.end({ timeout: 2 });
});

describe('event-days.rollup', () => {
  it("rolls a named day's events per project, and the scheduled run rolls yesterday", async () => {
    const [w] = await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('rollup', 'team', 'pro') returning id`;
    const [p] = await sql<
      { id: string }[]
    >`insert into projects (workspace_id, slug, name) values (${w.id}, ${`e-${randomUUID().slice(0, 12)}`}, 'E') returning id`;
    const day = dayOf(new Date(Date.UTC(1990, 0, 1) + Math.floor(Math.random() * 3000) * 86_400_000));
    const source = { workspaceId: w.id, projectId: p.id, linkId: null, sessionId: randomUUID(), visitId: null, device: 'tablet' as const };
    await recordEvents(sql, source, [
      { kind: 'entry', at: new Date(`${day}T12:00:00Z`) },
      { kind: 'time', subject: 'web', seconds: 42, at: new Date(`${day}T12:00:42Z`) },
      { kind: 'scenario', subject: 'reset', at: new Date(`${day}T12:01:00Z`) },
    ]);

    const done = await runJob(queues, 'event-days.rollup', `roll-${day}-${randomUUID()}`, { day }, 30_000, Rolled);
    expect(done.days).toEqual([day]);
    const rows = await sql`select views, viewers, active_seconds::int as s, time, scenarios from event_days where project_id = ${p.id}`;
    expect(rows).toEqual([{ views: 1, viewers: 1, s: 42, time: { web: 42 }, scenarios: { reset: 1 } }]);
    expect([...(await rolledDays(sql, day, day))]).toEqual([day]);

    const yesterday = dayOf(new Date(Date.now() - 86_400_000));
    const scheduled = await runJob(queues, 'event-days.rollup', `roll-${randomUUID()}`, {}, 30_000, Rolled);
    expect(scheduled.days).toContain(yesterday);
    expect(scheduled.days).not.toContain(dayOf(new Date()));
  });

  it('refuses a bad payload or a day that has not ended, without retrying', async () => {
    await queues.events('event-days.rollup').waitUntilReady();
    for (const data of [{ day: 'yesterday' }, { day: dayOf(new Date()) }]) {
      const job = await queues.add('event-days.rollup', data, { attempts: 3 });
      await expect(job.waitUntilFinished(queues.events('event-days.rollup'), 30_000)).rejects.toThrow();
      expect((await queues.get('event-days.rollup').getJob(job.id!))?.attemptsMade).toBe(1);
    }
  });
});
