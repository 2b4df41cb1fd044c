import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// Caps: a host capacity of two (the runner's own), the room's viewers at once, and the plan.
let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_HOST_CAPACITY: '2' });
});
afterAll(async () => {
  await runner?.close();
});
// Every viewer a test let in leaves after it, passed or failed: a failed test's copies would
// otherwise hold the host's two slots, and the next test would fail for them, not for itself.
const entered = new Set<string>();
afterEach(async () => {
  await Promise.all([...entered].map((s) => runner.client.leave(s).catch(() => {})));
  entered.clear();
  await eventually(async () => (await runner.containers()).length === 0);
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
/** Fresh viewer sessions, each left after the test (afterEach). */
function viewers(n: number): string[] {
  const made = Array.from({ length: n }, () => randomUUID());
  for (const s of made) entered.add(s);
  return made;
}

describe('caps and the high-demand queue', () => {
  it('queues viewers beyond a cap of two in arrival order, tells each their place, and lets the first in when one leaves', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const [s1, s2, s3, s4, s5] = viewers(5);
    await runner.client.enter(s1, enterBody(b));
    await runner.client.enter(s2, enterBody(b));
    const third = await runner.client.enter(s3, enterBody(b));
    const fourth = await runner.client.enter(s4, enterBody(b));
    const fifth = await runner.client.enter(s5, enterBody(b));
    expect(third).toMatchObject({ state: 'queued', place: 1 });
    expect(fourth).toMatchObject({ state: 'queued', place: 2 });
    expect(fifth).toMatchObject({ state: 'queued', place: 3 });
    expect(third.queuedSince).toBeTruthy();
    // Entering again keeps the place (idempotent), it does not queue twice.
    expect(await runner.client.enter(s4, enterBody(b))).toMatchObject({ state: 'queued', place: 2, copyId: fourth.copyId });
    await runner.until(s1, ['running']);
    await runner.until(s2, ['running']);
    expect((await runner.containers()).length).toBe(2);

    await runner.client.leave(s1);
    const admitted = await runner.until(s3, ['running']);
    expect(admitted.copyId).toBe(third.copyId);
    expect(await runner.client.copy(s4)).toMatchObject({ state: 'queued', place: 1 });
    expect(await runner.client.copy(s5)).toMatchObject({ state: 'queued', place: 2 });
    // A waiting viewer who leaves gives up their place; the one behind moves up.
    await runner.client.leave(s4);
    expect(await runner.client.copy(s5)).toMatchObject({ state: 'queued', place: 1 });
    await runner.client.leave(s2);
    await runner.until(s5, ['running']);
    expect((await runner.containers()).length).toBeLessThanOrEqual(2);
    const [held] = await runner.sql<
      { n: number }[]
    >`select count(*)::int as n from copy_events where workspace_id = ${b.workspaceId} and kind = 'queued'`;
    expect(held.n).toBe(3);
    for (const s of [s3, s5]) await runner.client.leave(s);
    await eventually(async () => (await runner.containers()).length === 0);
  });

  it("answers 'full' at the room's viewer cap and holds no slot for it", async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const [s1, s2] = viewers(2);
    await runner.client.enter(s1, { ...enterBody(b), roomViewerCap: 1 });
    expect(await runner.client.enter(s2, { ...enterBody(b), roomViewerCap: 1 })).toMatchObject({
      state: 'full',
      detail: 'room',
      copyId: null,
    });
    await runner.client.leave(s1);
    expect((await runner.client.enter(s2, { ...enterBody(b), roomViewerCap: 1 })).state).not.toBe('full');
    await runner.client.leave(s2);
  });

  it("answers 'full' when the workspace's plan allows no container copies", async () => {
    const ws = await seedWorkspace(runner.sql, 'free');
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: ws });
    expect(await runner.client.enter(viewers(1)[0], enterBody(b))).toMatchObject({ state: 'full', detail: 'plan' });
  });

  it('never passes the cap when many viewers race', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const sessions = viewers(8);
    const views = await Promise.all(sessions.map((s) => runner.client.enter(s, enterBody(b))));
    expect(views.filter((v) => v.state === 'queued').length).toBe(6);
    expect(
      views
        .filter((v) => v.state === 'queued')
        .map((v) => v.place)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    const [n] = await runner.sql<
      { n: number }[]
    >`select count(*)::int as n from runner_copies where runner_id = ${runner.runnerId} and state not in ('queued', 'ended')`;
    expect(n.n).toBe(2);
    await Promise.all(sessions.map((s) => runner.client.leave(s)));
    await eventually(async () => (await runner.containers()).length === 0);
  });

  it('gives up a paused copy (its viewer is away) for a viewer who would otherwise wait', async () => {
    const idle = await startTestRunner({ RUNNER_HOST_CAPACITY: '2', RUNNER_IDLE_PAUSE_S: '1', RUNNER_IDLE_REMOVE_S: '600' });
    try {
      const b = await seedContainerBuild(idle.sql, idle.storage, bundle, { workspaceId: await seedWorkspace(idle.sql) });
      const [away, here, newcomer] = [randomUUID(), randomUUID(), randomUUID()];
      await idle.client.enter(away, enterBody(b));
      const first = await idle.until(away, ['paused'], 60_000); // a start, a quiet second, a pause: slow on a loaded machine
      await idle.client.enter(here, enterBody(b));
      await idle.until(here, ['running']);
      const entered = await idle.client.enter(newcomer, enterBody(b));
      expect(entered.state).not.toBe('queued');
      expect(await idle.client.copy(away)).toMatchObject({ state: 'gone', copyId: first.copyId, detail: 'evicted' });
      await idle.until(newcomer, ['running', 'paused']);
      // The evicted copy's container is removed after the admission that gave it up (a stop is a
      // kill, a look at the engine's record, then the removal): two in the engine once that is done.
      await eventually(async () => (await idle.containers()).length === 2);
    } finally {
      await idle.close();
    }
  });
});
