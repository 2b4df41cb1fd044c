import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RUNNER_DEADLINE_HEADER, RUNNER_KEY_HEADER, runnerKey } from '@demo-rooms/contract/runner';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// Idempotent starts (issue 43 item 2): a start is the session's, so an enter cut off while its
// copy starts, entered again, or entered many times at once, makes one record and one engine
// start, and every call answers with that one copy. The demo answers its health path only ~3 s
// after it runs, so the first start is still under way when its call is cut.
let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_HEALTH_TIMEOUT_S: '60' });
});
afterAll(async () => {
  await runner?.close();
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
const slowStart = ['node', '-e', "setTimeout(() => require('/app/server.js'), 3000)"];

async function slowBuild(): Promise<Seeded> {
  const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
    workspaceId: await seedWorkspace(runner.sql),
    manifest: { run: { start: slowStart } },
  });
  await runner.service.ctx.images.ensure(b.buildId);
  return b;
}

/** Every record the session ever had. */
async function recordsOf(sessionId: string) {
  return runner.sql<{ id: string; state: string }[]>`select id, state from runner_copies where session_id = ${sessionId}`;
}

async function containersOfBuild(buildId: string) {
  return (await runner.containers()).filter((c) => c.labels['rooms.build'] === buildId);
}

describe('a start keyed by the session', () => {
  it('a start retried after a timeout makes one copy: the cut-off call, a retry and a crowd of retries all get the same copy', async () => {
    const b = await slowBuild();
    const start = vi.spyOn(runner.engine, 'start');
    const startsOfBuild = () => start.mock.calls.filter(([spec]) => spec.buildId === b.buildId).length;
    const session = randomUUID();

    // The room's call, waiting for the copy to settle, is cut off while the copy starts.
    const cut = new AbortController();
    const first = fetch(`${runner.baseUrl}/sessions/${session}/copy?wait=20000`, {
      method: 'POST',
      headers: { [RUNNER_KEY_HEADER]: runnerKey(runner.env.APP_SECRET), 'content-type': 'application/json' },
      body: JSON.stringify(enterBody(b)),
      signal: cut.signal,
    });
    const underWay = await eventually(async () => {
      const [row] = await recordsOf(session);
      return row && (row.state === 'starting' || row.state === 'creating') && startsOfBuild() === 1 ? row : null;
    });
    cut.abort();
    await expect(first).rejects.toThrow();

    // The viewer's reload: the same copy, still starting or by now running.
    const again = await runner.client.enter(session, enterBody(b));
    expect(again.copyId).toBe(underWay.id);
    expect(['starting', 'running']).toContain(again.state);
    // Many reloads at once, as a crowd of timed-out calls would send them; half say the session
    // never had a copy, as a room whose read raced the first start would (EnterBody.fresh).
    const crowd = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runner.client.enter(session, { ...enterBody(b), fresh: i % 2 === 0 })),
    );
    expect(new Set(crowd.map((v) => v.copyId))).toEqual(new Set([underWay.id]));

    const running = await runner.until(session, ['running']);
    expect(running.copyId).toBe(underWay.id);
    expect(await recordsOf(session)).toEqual([{ id: underWay.id, state: 'running' }]);
    expect(startsOfBuild()).toBe(1);
    expect((await containersOfBuild(b.buildId)).map((c) => c.labels['rooms.copy'])).toEqual([underWay.id]);

    await runner.client.leave(session);
    await eventually(async () => (await containersOfBuild(b.buildId)).length === 0);
    start.mockRestore();
  });

  it('a session entering many times at once from nothing gets one copy, started once', async () => {
    const b = await slowBuild();
    const start = vi.spyOn(runner.engine, 'start');
    const startsOfBuild = () => start.mock.calls.filter(([spec]) => spec.buildId === b.buildId).length;
    const session = randomUUID();

    // As the fleet client sends them: fresh, the session never had a copy (half without the hint).
    const views = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runner.client.enter(session, { ...enterBody(b), fresh: i % 2 === 0 })),
    );
    const ids = new Set(views.map((v) => v.copyId));
    expect(ids.size).toBe(1);
    const [copyId] = [...ids];
    expect(copyId).toBeTruthy();

    await runner.until(session, ['running']);
    expect(await recordsOf(session)).toEqual([{ id: copyId, state: 'running' }]);
    expect(startsOfBuild()).toBe(1);
    expect((await containersOfBuild(b.buildId)).map((c) => c.labels['rooms.copy'])).toEqual([copyId]);

    await runner.client.leave(session);
    await eventually(async () => (await containersOfBuild(b.buildId)).length === 0);
    // A caller whose hint is stale (the session had a copy, now ended) still gets one new copy.
    const next = await runner.client.enter(session, { ...enterBody(b), fresh: true });
    expect(next.copyId).toBeTruthy();
    expect(next.copyId).not.toBe(copyId);
    expect((await recordsOf(session)).filter((r) => r.state !== 'ended').map((r) => r.id)).toEqual([next.copyId]);
    await runner.client.leave(session);
    await eventually(async () => (await containersOfBuild(b.buildId)).length === 0);
    start.mockRestore();
  });

  it('an ask the caller gave up on before it was decided starts nothing, whether or not its socket is still open', async () => {
    const b = await slowBuild();
    const session = randomUUID();
    // The room's client stamps each call with when it gives up (runner-client.ts); a runner whose
    // loop is behind may read a request only after that, with its socket not yet seen closed.
    const res = await fetch(`${runner.baseUrl}/sessions/${session}/copy`, {
      method: 'POST',
      headers: {
        [RUNNER_KEY_HEADER]: runnerKey(runner.env.APP_SECRET),
        [RUNNER_DEADLINE_HEADER]: String(Date.now() - 1_000),
        'content-type': 'application/json',
      },
      body: JSON.stringify(enterBody(b)),
    });
    expect(res.status).toBe(200);
    expect(await recordsOf(session)).toEqual([]);
    expect(await containersOfBuild(b.buildId)).toEqual([]);
    // The viewer's next call, in time, is decided as any other.
    const again = await runner.client.enter(session, enterBody(b));
    expect(['starting', 'running']).toContain(again.state);
    await runner.client.leave(session);
    await eventually(async () => (await containersOfBuild(b.buildId)).length === 0);
  });
});
