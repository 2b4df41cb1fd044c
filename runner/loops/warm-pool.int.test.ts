import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql } from '../../services/core/infra/db.js';
import { containerUsage } from '../../services/data/container-usage.sql.js';
import { usage } from '../../workers/usage-rollup/usage.job.js';
import type { WorkerDeps } from '../../workers/worker-deps.js';
import { testEnv } from '../../test/support/services.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// The warm pool: a live build keeps a copy started and healthy ahead of viewers (pro plan: one),
// handed out at once, refilled in the background, counted against the caps.
let runner: TestRunner;
let build: Seeded;
beforeAll(async () => {
  const bundle = await demoBundle();
  const sql0 = createSql(testEnv().DATABASE_URL, { max: 1 });
  const workspaceId = await seedWorkspace(sql0, 'pro');
  await sql0.end();
  // This runner serves only its own workspace: other tests' live builds are not its business.
  runner = await startTestRunner({ RUNNER_WARM_MAX: '2', RUNNER_WORKSPACES: workspaceId, RUNNER_RECONCILE_S: '1' });
  build = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId });
});
afterAll(async () => {
  await runner?.close();
});

const warmCopies = async () =>
  runner.sql<
    { id: string; state: string }[]
  >`select id, state from runner_copies where build_id = ${build.buildId} and session_id is null and state <> 'ended'`;

describe('warm pool', () => {
  it('keeps a warm copy of a live build, hands it to the first viewer at once, and refills', async () => {
    // Prepare (what the api calls when the build goes live) loads the image and fills the pool.
    const prepared = await runner.client.prepare(build.buildId, 20_000);
    expect(prepared.image).toBe('ready');
    const [warm] = await eventually(async () => {
      const w = await warmCopies();
      return w.length === 1 && w[0].state === 'warm' ? w : null;
    });

    const session = randomUUID();
    const entered = await runner.client.enter(session, {
      workspaceId: build.workspaceId,
      projectId: build.projectId,
      buildId: build.buildId,
    });
    expect(entered).toMatchObject({ state: 'running', copyId: warm.id });
    const at = await runner.addressOf(entered.copyId!);
    expect((await fetch(`http://${at.host}:${at.port}/`)).status).toBe(200);
    const [claim] = await runner.sql<{ kind: string }[]>`select kind from copy_events where copy_id = ${warm.id} order by seq desc limit 1`;
    expect(claim.kind).toBe('claim');

    // Refilled in the background, to the plan's one warm copy (pro), not RUNNER_WARM_MAX.
    const refill = await eventually(async () => {
      const w = await warmCopies();
      return w.length === 1 && w[0].state === 'warm' && w[0].id !== warm.id ? w : null;
    });
    expect(refill).toHaveLength(1);
    await runner.client.leave(session);
  });

  it("counts the warm copies' starts in the median cold start, live and in the monthly roll-up (issue 29, item 7)", async () => {
    // Every viewer of a paid plan takes a warm copy: before, none of those starts counted and
    // Usage said "Median cold start —" while the runner logged each one.
    await eventually(async () => (await warmCopies()).some((w) => w.state === 'warm'));
    const [timed] = await runner.sql<{ coldStartMs: number }[]>`
      select cold_start_ms from runner_copies where build_id = ${build.buildId} and origin = 'warm' and ready_at is not null order by ready_at limit 1`;
    expect(timed.coldStartMs).toBeGreaterThan(0);
    const live = await containerUsage(runner.sql, build.workspaceId);
    expect(live.runs).toBeGreaterThanOrEqual(2);
    expect(live.medianColdStartMs).toBeGreaterThan(0);
    // The roll-up closes earlier months of every workspace (other test files' too): the whole config it reads.
    await usage({ sql: runner.sql, config: loadConfig(runner.env), log: { info: () => {} } } as unknown as WorkerDeps);
    const [rolled] = await runner.sql<{ medianColdStartMs: number | null }[]>`
      select median_cold_start_ms from usage_months where workspace_id = ${build.workspaceId}`;
    expect(rolled.medianColdStartMs).toBe(live.medianColdStartMs);
  });

  it('gives the warm copy up when its build is no longer live', async () => {
    await eventually(async () => (await warmCopies()).some((w) => w.state === 'warm'));
    await runner.sql`update projects set live_build_id = null where id = ${build.projectId}`;
    await eventually(async () => (await warmCopies()).length === 0);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});
