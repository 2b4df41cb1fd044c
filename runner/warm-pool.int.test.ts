import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql } from '../services/core/db.js';
import { testEnv } from '../test/support/services.js';
import { demoBundle } from './test-support/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from './test-support/seed.js';
import { eventually, startTestRunner, type TestRunner } from './test-support/test-runner.js';

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
  runner.sql<{ id: string; state: string }[]>`select id, state from runner_copies where build_id = ${build.buildId} and session_id is null and state <> 'ended'`;

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
    const entered = await runner.client.enter(session, { workspaceId: build.workspaceId, projectId: build.projectId, buildId: build.buildId });
    expect(entered).toMatchObject({ state: 'running', copyId: warm.id });
    expect((await fetch(`http://${entered.target!.host}:${entered.target!.port}/`)).status).toBe(200);
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

  it('gives the warm copy up when its build is no longer live', async () => {
    await eventually(async () => (await warmCopies()).some((w) => w.state === 'warm'));
    await runner.sql`update projects set live_build_id = null where id = ${build.projectId}`;
    await eventually(async () => (await warmCopies()).length === 0);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});
