import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { testEnv } from '../../test/support/services.js';
import type { WorkerDeps } from '../worker-deps.js';
import { usage } from './usage.job.js';

let sql: Sql;
let deps: WorkerDeps;
beforeAll(() => {
  const config = loadConfig({ ...testEnv(), LOG_LEVEL: 'silent' } as unknown as NodeJS.ProcessEnv);
  sql = createSql(config.DATABASE_URL, { max: 2 });
  deps = { config, sql, storage: createStorage(config), log: createLogger({ name: 'usage-test', level: 'silent' }) } as WorkerDeps;
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

const job = (data: unknown) => ({ data, updateProgress: async () => {} }) as unknown as Job;

describe('usage roll-up', () => {
  it("writes each workspace's month for billing, final once the month is over, and a second run changes nothing", async () => {
    const [w] = await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('rollup', 'team', 'pro') returning id`;
    const [p] = await sql<
      { id: string }[]
    >`insert into projects (workspace_id, slug, name) values (${w.id}, ${`u-${randomUUID().slice(0, 12)}`}, 'U') returning id`;
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 10, 12));
    const copyId = randomUUID();
    await sql`insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, asked_at, ended_at, seq)
              values (${copyId}, 'rollup-test', ${w.id}, ${p.id}, ${randomUUID()}, 'viewer', 'ended', ${lastMonth}, ${new Date(lastMonth.getTime() + 7_200_000)}, 3)`;
    for (const [seq, kind, offset, cold] of [
      [1, 'start', 0, null],
      [2, 'ready', 1_000, 1_000],
      [3, 'stop', 7_200_000, null],
    ] as const) {
      await sql`insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, cold_start_ms)
                values (${copyId}, ${seq}, ${w.id}, ${p.id}, ${randomUUID()}, ${kind}, ${new Date(lastMonth.getTime() + offset)}, ${cold})`;
    }
    const month = lastMonth.toISOString().slice(0, 7);
    await usage(deps, job({ month }));
    const read = () => sql<
      {
        runs: number;
        containerHours: string;
        failedStarts: number;
        heldBack: number;
        medianColdStartMs: number;
        final: boolean;
        rolledAt: Date;
      }[]
    >`
      select runs, container_hours, failed_starts, held_back, median_cold_start_ms, final, rolled_at from usage_months where workspace_id = ${w.id}`;
    const [first] = await read();
    expect(first).toMatchObject({ runs: 1, containerHours: '2.0000', failedStarts: 0, heldBack: 0, medianColdStartMs: 1000, final: true });
    await usage(deps, job({ month }));
    const again = await read();
    expect(again).toHaveLength(1);
    expect(again[0].rolledAt).toEqual(first.rolledAt);
  });

  it('refuses a malformed month', async () => {
    await expect(usage(deps, job({ month: '2026-13' }))).rejects.toThrow(/bad usage payload/);
  });
});
