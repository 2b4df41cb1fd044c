import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { seedBuildRecords, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { testEnv } from '../../test/support/services.js';
import { createBuildRuns, NoSuchBuild } from './build-runs.js';

// A crowd's first viewers of a build share one read of its manifest: before, each read it for
// itself, and under a burst hundreds of manifest reads stood in front of their own admissions.

let sql: Sql;
let build: Seeded;
/** Statements that read a build's manifest, counted as they are sent. */
let manifestReads = 0;
beforeAll(async () => {
  const real = createSql(testEnv().DATABASE_URL, { max: 4 });
  sql = new Proxy(real, {
    apply(target, self, args) {
      if (Array.isArray(args[0]) && (args[0] as string[]).join('').includes('manifest')) manifestReads++;
      return Reflect.apply(target, self, args);
    },
  });
  build = await seedBuildRecords(real, await seedWorkspace(real));
});
afterAll(async () => {
  await sql?.end({ timeout: 2 });
});

it('reads a build once however many ask for it at the same moment, and answers each the same', async () => {
  const runOf = createBuildRuns(sql);
  manifestReads = 0;
  const runs = await Promise.all(Array.from({ length: 50 }, () => runOf(build.buildId)));
  expect(manifestReads).toBe(1);
  for (const r of runs) expect(r).toBe(runs[0]);
  expect(runs[0]).toMatchObject({ buildId: build.buildId, workspaceId: build.workspaceId, projectId: build.projectId });
  await runOf(build.buildId);
  expect(manifestReads).toBe(1);
});

it('tells every asker of a missing build so, and does not keep the refusal', async () => {
  const runOf = createBuildRuns(sql);
  const missing = randomUUID();
  manifestReads = 0;
  const answers = await Promise.allSettled(Array.from({ length: 5 }, () => runOf(missing)));
  expect(answers.every((a) => a.status === 'rejected' && a.reason instanceof NoSuchBuild)).toBe(true);
  expect(manifestReads).toBe(1);
  await expect(runOf(missing)).rejects.toBeInstanceOf(NoSuchBuild);
  expect(manifestReads).toBe(2);
});
