import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orphanCopiesRemoved } from '../../services/core/infra/metrics.js';
import { transition } from '../../services/data/copies.sql.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { startOrphanInEngine, warmRecord } from '../../test/support/runner/orphan-copy.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';
import { failCopy } from '../copies/copy-control.js';
import { reconcile } from './reconcile.js';

// No copy left behind (issue 43 item 2): a copy in the engine with this runner's labels that no
// live record owns (a start that outlived its record, a record ended by another runner) is removed
// by one reconcile and counted once; a copy its record owns is left alone. The loop's own
// reconcile is pushed out of the way (an hour), so the pass here is the one that acts.
let runner: TestRunner;
let bundle: Buffer;
let b: Seeded;
let image: string;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_RECONCILE_S: '3600' });
  b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
  image = await runner.service.ctx.images.ensure(b.buildId);
});
afterAll(async () => {
  await runner?.close();
});

const removedSoFar = async () => (await orphanCopiesRemoved.get()).values[0]?.value ?? 0;

const startInEngine = (copyId: string) => startOrphanInEngine(runner, b, image, copyId);

const copiesInEngine = async () => (await runner.containers()).map((c) => c.labels['rooms.copy']).sort();

describe('the reconcile and copies no record owns', () => {
  it('removes an orphan container in one pass, counts it once, and leaves the copies records own', async () => {
    // A viewer's copy, owned by its record.
    const session = randomUUID();
    await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
    const owned = (await runner.until(session, ['running'])).copyId!;
    // Two the records do not own: one never recorded, one whose record has ended.
    const stray = randomUUID();
    await startInEngine(stray);
    const ended = await warmRecord(runner, b);
    await transition(runner.sql, ended.id, ['creating'], 'ended', { set: { endReason: 'failed:deadline' }, event: 'fail' });
    await startInEngine(ended.id);
    expect(await copiesInEngine()).toEqual([owned, stray, ended.id].sort());
    const before = await removedSoFar();

    const pass = await reconcile(runner.service.ctx);
    expect(pass.removed).toBe(2);
    expect((await removedSoFar()) - before).toBe(2);
    expect(await copiesInEngine()).toEqual([owned]);
    const networks = (await runner.engine.networksOf(runner.runnerId)).map((n) => n.labels['rooms.copy']);
    expect(networks).not.toContain(stray);
    expect(networks).not.toContain(ended.id);

    // Nothing more to remove: the next pass counts nothing.
    expect((await reconcile(runner.service.ctx)).removed).toBe(0);
    expect((await removedSoFar()) - before).toBe(2);
    expect(await runner.client.copy(session)).toMatchObject({ state: 'running', copyId: owned });

    await runner.client.leave(session);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});

describe('a judgement made a moment ago', () => {
  it('leaves a running copy alone when it is failed as a start it no longer is (its container is not killed)', async () => {
    // The reconcile lists the engine, then reads the records, then acts: a start that finished in
    // between still looks interrupted to it. Failing it from the states it had must not remove the
    // container of a copy that runs now (it was killed with exit 137, then closed `oom` with its
    // container gone, and its seconds voided as never run: issue 46).
    const session = randomUUID();
    await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
    const copyId = (await runner.until(session, ['running'])).copyId!;
    await failCopy(runner.service.ctx, copyId, 'interrupted', 'the runner stopped while starting the copy', ['creating', 'starting']);
    expect(await runner.client.copy(session)).toMatchObject({ state: 'running', copyId });
    const container = (await runner.containers()).find((c) => c.labels['rooms.copy'] === copyId);
    expect(container?.status).toBe('running');

    await runner.client.leave(session);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});
