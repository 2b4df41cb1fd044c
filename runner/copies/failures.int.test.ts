import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';
import { createSql } from '../../services/core/infra/db.js';
import { copyById, insertCopy } from '../../services/data/copies.sql.js';
import { reconcile } from '../loops/reconcile.js';
import { startCopy } from './copy-starter.js';

// "Could not start": a copy that never answers its health path, exits, or runs out of memory is
// failed, counted, and leaves nothing in the engine.
let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_HEALTH_TIMEOUT_S: '2', RUNNER_COPY_MEMORY_MB: '64' });
});
afterAll(async () => {
  await runner?.close();
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });

async function failing(start: string[], manifest: Record<string, unknown> = {}) {
  const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
    workspaceId: await seedWorkspace(runner.sql),
    manifest: { run: { start }, ...manifest },
  });
  const session = randomUUID();
  await runner.client.enter(session, enterBody(b));
  const view = await runner.until(session, ['failed', 'running']);
  return { b, session, view };
}

async function noContainerOf(copyId: string) {
  await eventually(async () => !(await runner.containers()).some((c) => c.labels['rooms.copy'] === copyId));
  await eventually(async () => !(await runner.engine.networksOf(runner.runnerId)).some((n) => n.labels['rooms.copy'] === copyId));
}

describe('copies that could not start', () => {
  it('fails a copy that never answers its health path, counts it, and leaves no container', async () => {
    const { b, view } = await failing(['node', '-e', 'setInterval(() => {}, 1e6)']);
    expect(view).toMatchObject({ state: 'failed', detail: 'health' });
    await noContainerOf(view.copyId!);
    const [fails] = await runner.sql<
      { n: number }[]
    >`select count(*)::int as n from copy_events where workspace_id = ${b.workspaceId} and kind = 'fail'`;
    expect(fails.n).toBe(1);
  });

  it('fails a copy whose health path answers something other than 200', async () => {
    const { view } = await failing(['node', 'server.js'], { health: '/broken' });
    expect(view).toMatchObject({ state: 'failed', detail: 'health' });
    await noContainerOf(view.copyId!);
  });

  it('fails fast, from the engine event, a copy that exits', async () => {
    const { view } = await failing(['node', '-e', 'process.exit(3)']);
    expect(view).toMatchObject({ state: 'failed', detail: 'exited' });
    await noContainerOf(view.copyId!);
  });

  it('fails a copy that runs out of memory', async () => {
    const { view } = await failing(['node', '-e', 'const a = []; for (;;) a.push(Buffer.alloc(4e6, 1))']);
    expect(view).toMatchObject({ state: 'failed', detail: 'oom' });
    await noContainerOf(view.copyId!);
  });

  it('answers a reload right after the failure with the failure, and starts again when asked to retry', async () => {
    const { b, session, view } = await failing(['node', '-e', 'process.exit(1)']);
    expect((await runner.client.enter(session, enterBody(b))).copyId).toBe(view.copyId);
    const retried = await runner.client.enter(session, { ...enterBody(b), retry: true });
    expect(retried.copyId).not.toBe(view.copyId);
    await runner.until(session, ['failed']);
  });

  it('withdraws a start when the viewer leaves, without counting a failure or leaving a container', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId: await seedWorkspace(runner.sql),
      manifest: { run: { start: ['node', '-e', 'setInterval(() => {}, 1e6)'] } },
    });
    const session = randomUUID();
    const v = await runner.client.enter(session, enterBody(b));
    await runner.client.leave(session);
    expect(await runner.client.copy(session)).toMatchObject({ state: 'gone', detail: 'left' });
    await noContainerOf(v.copyId!);
    const [fails] = await runner.sql<
      { n: number }[]
    >`select count(*)::int as n from copy_events where workspace_id = ${b.workspaceId} and kind = 'fail'`;
    expect(fails.n).toBe(0);
  });

  it('leaves a start whose failure cannot be written to the reconcile, without throwing, and the reconcile fails it', async () => {
    // Postgres gone as the start writes its record of the engine's unit (a restart mid-burst): the
    // start fails, and so does writing its failure. A start runs unawaited, so a rejection here
    // ended the runner's process (issue 46).
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const row = await insertCopy(runner.sql, {
      ...b,
      id: randomUUID(),
      runnerId: runner.runnerId,
      sessionId: null,
      origin: 'warm',
      state: 'creating',
    });
    await runner.service.ctx.images.ensure(b.buildId);
    const gone = createSql(runner.env.DATABASE_URL, { max: 1 });
    await gone.end();

    await expect(startCopy({ ...runner.service.ctx, sql: gone }, row)).resolves.toBeUndefined();
    // Left as it was: the record creating, the engine's unit made and not started.
    expect((await copyById(runner.sql, row.id))!.state).toBe('creating');
    expect((await runner.containers()).filter((c) => c.labels['rooms.copy'] === row.id).map((c) => c.status)).toEqual(['created']);

    // With the database back, the reconcile finishes it: failed, nothing billed, nothing left.
    await reconcile(runner.service.ctx);
    const ended = (await copyById(runner.sql, row.id))!;
    expect([ended.state, ended.endReason]).toEqual(['ended', 'failed:interrupted']);
    await noContainerOf(row.id);
  });
});
