import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopySpec } from '@demo-rooms/contract/runner';
import { insertCopy, transition } from '../../services/data/copies.sql.js';
import { beat, settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import { billedCopiesOf } from '../../services/data/usage-reconciliation.sql.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';
import { endLostRuns } from './lost-host-runs.js';

// A lost host's copies billed to the engine's finish, not its last beat (issue 46): a host of the
// survivor's fleet goes silent with a copy running and one it had ended without removing its
// container; on one podman, the survivor's engine sees both containers. Settling ends the first
// at the host's last beat; the survivor's engine then stops both, the first's stop is dated at
// podman's FinishedAt, and the second's engine time after its stop is accounted as unowned.
let runner: TestRunner;
let b: Seeded;
let image: string;
const since = new Date();
beforeAll(async () => {
  runner = await startTestRunner({ RUNNER_RECONCILE_S: '3600', RUNNER_USAGE_RECONCILE_S: '3600' });
  b = await seedContainerBuild(runner.sql, runner.storage, await demoBundle(), { workspaceId: await seedWorkspace(runner.sql) });
  image = await runner.service.ctx.images.ensure(b.buildId);
});
afterAll(async () => {
  await runner?.close();
});

/** A copy of `runnerId` running in the engine, with its record started at the engine's StartedAt. */
async function runningCopyOf(runnerId: string) {
  const row = await insertCopy(runner.sql, { ...b, id: randomUUID(), runnerId, sessionId: null, origin: 'warm', state: 'creating' });
  const spec: CopySpec = { copyId: row.id, ...b, runnerId, image, start: ['node', 'server.js'], env: {}, ...runner.settings.copy };
  let startedAt = new Date();
  const { handle } = await runner.engine.start(spec, {
    signal: new AbortController().signal,
    made: async () => {},
    running: async (at) => void (startedAt = at ?? startedAt),
    phase: () => {},
  });
  await transition(runner.sql, row.id, ['creating'], 'starting', {
    set: { startedAt, containerId: handle },
    at: startedAt,
    event: 'start',
  });
  await transition(runner.sql, row.id, ['starting'], 'running', { now: ['readyAt'], event: 'ready' });
  return row.id;
}

describe("a lost host's copies, as the survivor's engine saw them end", () => {
  it("dates a settled copy's stop at the engine's finish, and bills a unit whose stop was never carried out as unowned", async () => {
    const lostId = `lost-${randomUUID().slice(0, 8)}`;
    const fleet = runner.settings.fleet;
    await beat(runner.sql, { id: lostId, fleet, apiUrl: 'http://127.0.0.1:1', copyOrigin: null, slots: 2 });
    const running = await runningCopyOf(lostId);
    // Ended by the host, which died before its removal: the container runs on.
    const unremoved = await runningCopyOf(lostId);
    await transition(runner.sql, unremoved, ['running'], 'ended', { set: { endReason: 'left' }, event: 'stop', detail: 'left' });
    await runner.sql`update runner_hosts set seen_at = now() - interval '60 seconds' where id = ${lostId}`;
    const [lost] = await settleLostHosts(runner.sql, fleet, runner.runnerId, 10);
    expect(lost.copies.map((c) => c.copyId)).toEqual([running]);
    // The engine runs them on past the records' last moment.
    await sleep(1_500);

    const ended = await endLostRuns(runner.service.ctx, lost);
    expect(ended.dated).toBe(1);
    expect(ended.unownedSeconds).toBeGreaterThan(1);
    expect(await runner.engine.containersOf(lostId)).toEqual([]);

    const billed = new Map((await billedCopiesOf(runner.sql, lostId, { start: since, end: new Date() })).map((c) => [c.copyId, c]));
    const [stop] = await runner.sql<{ at: Date }[]>`select at from copy_events where copy_id = ${running} and kind = 'stop'`;
    const r = billed.get(running)!;
    expect(r.engineFinishedAt).not.toBeNull();
    expect(stop.at).toEqual(r.engineFinishedAt);
    expect(r.billedSeconds).toBeCloseTo((r.engineFinishedAt!.getTime() - r.engineStartedAt!.getTime()) / 1000, 3);
    const u = billed.get(unremoved)!;
    expect(u.billedSeconds).toBeCloseTo((u.engineFinishedAt!.getTime() - u.engineStartedAt!.getTime()) / 1000, 3);
    await runner.sql`delete from runner_hosts where id = ${lostId}`;
  });
});
