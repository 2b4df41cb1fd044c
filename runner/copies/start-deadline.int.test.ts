import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { failedStarts } from '../../services/core/infra/metrics.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// The start deadline (RUNNER_START_DEADLINE_S, issue 43 item 2): a copy that is not ready in time
// gives its slot back, leaves nothing in the engine, and its viewer is told. One slot on the host,
// so the slot coming back is seen as the next viewer getting in. The health timeout is far longer
// than the deadline: only the deadline can end these starts.
let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_START_DEADLINE_S: '4', RUNNER_HEALTH_TIMEOUT_S: '120', RUNNER_HOST_CAPACITY: '1' });
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await runner?.close();
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });

/** A live build in a workspace of its own, its image already in the engine (the deadline is for the start, not the first load of a test image). */
async function build(start: string[]): Promise<Seeded> {
  const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
    workspaceId: await seedWorkspace(runner.sql),
    manifest: { run: { start } },
  });
  await runner.service.ctx.images.ensure(b.buildId);
  return b;
}

const deadlineFailures = async () => (await failedStarts.get()).values.find((v) => v.labels.reason === 'deadline')?.value ?? 0;

async function recordOf(copyId: string) {
  const [row] = await runner.sql<
    { state: string; endReason: string | null }[]
  >`select state, end_reason from runner_copies where id = ${copyId}`;
  const [fails] = await runner.sql<{ n: number }[]>`select count(*)::int as n from copy_events where copy_id = ${copyId} and kind = 'fail'`;
  return { ...row, fails: fails.n };
}

async function nothingInEngineFor(copyId: string) {
  await eventually(async () => !(await runner.containers()).some((c) => c.labels['rooms.copy'] === copyId));
  await eventually(async () => !(await runner.engine.networksOf(runner.runnerId)).some((n) => n.labels['rooms.copy'] === copyId));
}

describe('the start deadline', () => {
  it('a copy never ready gives its slot back at the deadline: failed, told, nothing left, the next viewer let in', async () => {
    const never = await build(['node', '-e', 'setInterval(() => {}, 1e6)']);
    const healthy = await build(['node', 'server.js']);
    const before = await deadlineFailures();
    const [stuck, next] = [randomUUID(), randomUUID()];

    const first = await runner.client.enter(stuck, enterBody(never));
    expect(first.state).toBe('starting');
    // The host's one slot is the stuck copy's: the next viewer waits for it.
    expect(await runner.client.enter(next, enterBody(healthy))).toMatchObject({ state: 'queued', place: 1 });

    const view = await runner.until(stuck, ['failed', 'running', 'gone']);
    expect(view).toMatchObject({ state: 'failed', detail: 'deadline', copyId: first.copyId });
    expect(await recordOf(first.copyId!)).toEqual({ state: 'ended', endReason: 'failed:deadline', fails: 1 });
    expect((await deadlineFailures()) - before).toBe(1);
    // The slot went to the viewer who waited.
    await runner.until(next, ['running']);
    await nothingInEngineFor(first.copyId!);

    await runner.client.leave(next);
    await eventually(async () => (await runner.containers()).length === 0);
  });

  it('ends a start whose engine call never returns: the record ends at the deadline, the copy made is removed, the slot is free', async () => {
    const hanging = await build(['node', 'server.js']);
    const other = await build(['node', 'server.js']);
    const realStart = runner.engine.start.bind(runner.engine);
    // The engine makes and runs the container, then never answers and ignores the abort: only the
    // starter's own deadline can end this start.
    const start = vi.spyOn(runner.engine, 'start').mockImplementation(async (spec, hooks) => {
      const started = await realStart(spec, hooks);
      if (spec.buildId === hanging.buildId) await new Promise(() => {});
      return started;
    });
    const before = await deadlineFailures();
    const session = randomUUID();

    const first = await runner.client.enter(session, enterBody(hanging));
    const view = await runner.until(session, ['failed', 'running', 'gone']);
    expect(view).toMatchObject({ state: 'failed', detail: 'deadline', copyId: first.copyId });
    expect(await recordOf(first.copyId!)).toEqual({ state: 'ended', endReason: 'failed:deadline', fails: 1 });
    expect((await deadlineFailures()) - before).toBe(1);
    await nothingInEngineFor(first.copyId!);
    expect(start.mock.calls.filter(([spec]) => spec.buildId === hanging.buildId)).toHaveLength(1);

    // The one slot is free again: another viewer is admitted at once, not queued.
    const another = randomUUID();
    expect((await runner.client.enter(another, enterBody(other))).state).toBe('starting');
    await runner.until(another, ['running']);
    await runner.client.leave(another);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});
