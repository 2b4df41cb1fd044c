import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopySpec } from '@demo-rooms/contract/runner';
import { unownedSecondsBilled, usageDifferences } from '../../services/core/infra/metrics.js';
import { copyById, insertCopy, transition } from '../../services/data/copies.sql.js';
import { beat, settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import { billedCopiesOf } from '../../services/data/usage-reconciliation.sql.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { startOrphanInEngine, warmRecord } from '../../test/support/runner/orphan-copy.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';
import { stopCopy } from '../copies/copy-control.js';
import { endLostRuns } from './lost-host-runs.js';
import { MAX_DIFF_S, reconcileUsage } from './usage-reconcile.js';

// Billed seconds against the engine's own record (issue 46, item 1), with podman as the engine:
// a copy a viewer ran bills within a second of podman's StartedAt/FinishedAt; a container with
// the runner's labels and no record is ended and billed to its workspace as 'unowned'; a billed
// copy podman never ran is voided; a second pass changes nothing. The loops' own passes are
// pushed out of the way (an hour), so the passes here are the ones that act.
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

const startInEngine = (copyId: string) => startOrphanInEngine(runner, b, image, copyId);

/** A counter's value now (of one kind when given). */
const counted = async (c: typeof unownedSecondsBilled | typeof usageDifferences, kind?: string) =>
  (await c.get()).values.find((v) => !kind || v.labels.kind === kind)?.value ?? 0;

const window = () => ({ start: since, end: new Date() });
const billedOf = async (copyId: string) => (await billedCopiesOf(runner.sql, runner.runnerId, window())).find((c) => c.copyId === copyId);
const engineSeconds = (c: { engineStartedAt: Date | null; engineFinishedAt: Date | null; pausedSeconds: number }) =>
  (c.engineFinishedAt!.getTime() - c.engineStartedAt!.getTime()) / 1000 - c.pausedSeconds;

describe('usage reconciled against the engine', () => {
  it("bills a viewer's copy within a second of podman's record, paused time free", async () => {
    const session = randomUUID();
    await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
    const copyId = (await runner.until(session, ['running'])).copyId!;
    // A pause and a resume, as the idle culler makes them: podman counts the paused time, billing does not.
    const row = (await copyById(runner.sql, copyId))!;
    await runner.engine.pause(row.containerId!);
    await transition(runner.sql, copyId, ['running'], 'paused', { now: ['pausedAt'], event: 'pause' });
    await runner.engine.resume(row.containerId!);
    await transition(runner.sql, copyId, ['paused'], 'running', { now: ['activeAt'], event: 'resume' });
    // While it runs, the engine's record is the container's.
    const running = await reconcileUsage(runner.service.ctx, { since });
    expect(running.differences.filter((d) => d.copyId === copyId)).toEqual([]);

    await runner.client.leave(session);
    await eventually(async () => (await billedOf(copyId))?.engineCheckedAt);
    const billed = (await billedOf(copyId))!;
    expect(billed.engineStartedAt).not.toBeNull();
    expect(billed.engineFinishedAt).not.toBeNull();
    expect(billed.pausedSeconds).toBeGreaterThan(0);
    expect(Math.abs(billed.billedSeconds - engineSeconds(billed))).toBeLessThanOrEqual(MAX_DIFF_S);
    const ended = await reconcileUsage(runner.service.ctx, { since });
    expect(ended.differences.filter((d) => d.copyId === copyId)).toEqual([]);
  });

  it("dates a copy's start and stop at podman's own StartedAt and FinishedAt: billed is the engine's run, to the millisecond", async () => {
    const session = randomUUID();
    await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
    const copyId = (await runner.until(session, ['running'])).copyId!;
    await runner.client.leave(session);
    await eventually(async () => (await billedOf(copyId))?.engineCheckedAt);
    const billed = (await billedOf(copyId))!;
    const events = await runner.sql<{ kind: string; at: Date }[]>`
      select kind, at from copy_events where copy_id = ${copyId} and kind in ('start', 'stop') order by seq`;
    // The start call returns after podman's StartedAt, and the stop is recorded before podman
    // kills the container: each dated at the engine's own moment instead, short copies bill
    // what the engine ran, not a few percent less (issue 46).
    expect(events.map((e) => e.kind)).toEqual(['start', 'stop']);
    expect(events[0].at).toEqual(billed.engineStartedAt);
    expect(events[1].at).toEqual(billed.engineFinishedAt);
    expect(billed.billedSeconds).toBeCloseTo(engineSeconds(billed), 3);
  });

  it('ends a container no record owns and bills its engine time to the workspace its labels name, once', async () => {
    const stray = randomUUID();
    await startInEngine(stray);
    // A record ended before its container went (a failed start whose container lived on): its time is unbilled.
    const failed = await warmRecord(runner, b);
    await transition(runner.sql, failed.id, ['creating'], 'ended', { set: { endReason: 'failed:deadline' }, event: 'fail' });
    await startInEngine(failed.id);

    const billedBefore = await counted(unownedSecondsBilled);
    const unownedBefore = await counted(usageDifferences, 'unowned');
    const first = await reconcileUsage(runner.service.ctx, { since });
    expect((await counted(usageDifferences, 'unowned')) - unownedBefore).toBe(2);
    expect((await counted(unownedSecondsBilled)) - billedBefore).toBeGreaterThan(0);
    const unowned = first.differences.filter((d) => d.kind === 'unowned').map((d) => d.copyId);
    expect(unowned.sort()).toEqual([stray, failed.id].sort());
    expect(first.differences.find((d) => d.copyId === stray)).toMatchObject({ workspaceId: b.workspaceId, fixed: true, billedSeconds: 0 });
    expect((await runner.containers()).map((c) => c.labels['rooms.copy'])).not.toEqual(expect.arrayContaining([stray]));
    expect((await runner.containers()).map((c) => c.labels['rooms.copy'])).not.toEqual(expect.arrayContaining([failed.id]));

    for (const copyId of [stray, failed.id]) {
      const billed = (await billedOf(copyId))!;
      expect(billed.workspaceId).toBe(b.workspaceId);
      expect(billed.billedSeconds).toBeGreaterThan(0);
      expect(Math.abs(billed.billedSeconds - engineSeconds(billed))).toBeLessThanOrEqual(MAX_DIFF_S);
    }
    expect(await copyById(runner.sql, stray)).toMatchObject({ origin: 'unowned', state: 'ended', endReason: 'unowned' });

    // Twice: nothing more to end, nothing billed again.
    const before = await Promise.all([stray, failed.id].map(async (id) => (await billedOf(id))!.billedSeconds));
    const second = await reconcileUsage(runner.service.ctx, { since });
    expect(second.differences.filter((d) => [stray, failed.id].includes(d.copyId))).toEqual([]);
    expect(await Promise.all([stray, failed.id].map(async (id) => (await billedOf(id))!.billedSeconds))).toEqual(before);
  });

  it('voids a billed copy the engine never ran: a correction, its events kept', async () => {
    // A record that says it ran, with no container ever behind it (the engine lost it, or never had it).
    const ghost = await warmRecord(runner, b);
    await transition(runner.sql, ghost.id, ['creating'], 'starting', { now: ['startedAt'], event: 'start' });
    await transition(runner.sql, ghost.id, ['starting'], 'warm', { now: ['readyAt'], event: 'ready' });
    // The runner ends it: the engine holds nothing for it, and that is kept as its record.
    await stopCopy(runner.service.ctx, ghost.id, 'left');
    expect((await billedOf(ghost.id))!.billedSeconds).toBeGreaterThan(0);

    const first = await reconcileUsage(runner.service.ctx, { since });
    expect(first.differences.find((d) => d.copyId === ghost.id)).toMatchObject({ kind: 'never-ran', fixed: true, engineSeconds: 0 });
    expect(await billedOf(ghost.id)).toMatchObject({ billedSeconds: 0, voided: true });
    const kinds = await runner.sql<{ kind: string }[]>`select kind from copy_events where copy_id = ${ghost.id} order by seq`;
    expect(kinds.map((k) => k.kind)).toEqual(['start', 'ready', 'stop', 'void']);

    const second = await reconcileUsage(runner.service.ctx, { since });
    expect(second.differences.filter((d) => d.copyId === ghost.id)).toEqual([]);
    expect(await billedOf(ghost.id)).toMatchObject({ billedSeconds: 0, voided: true });
    expect((await runner.sql`select count(*)::int as n from copy_events where copy_id = ${ghost.id}`)[0].n).toBe(4);
  });

  it("keeps the engine's record of a copy whose runner died between its stop and its removal, found by the next", async () => {
    // A copy stopped by its runner, which died as its removal killed the container: the record
    // says ended, the container has exited (before the stop's moment), and nothing was kept. The
    // next runner removes it as a unit no live record owns, with nothing left to bill: its
    // engine record is kept all the same, or the copy is billed with none to judge it by.
    const copy = await warmRecord(runner, b);
    await startInEngine(copy.id);
    await transition(runner.sql, copy.id, ['creating'], 'starting', { now: ['startedAt'], event: 'start' });
    await transition(runner.sql, copy.id, ['starting'], 'running', { now: ['readyAt'], event: 'ready' });
    const ctx = runner.service.ctx;
    ctx.stopping.add(copy.id); // the dead runner's removal: its exit is not this runner's to close
    await runner.engine.kill((await runner.containers()).find((c) => c.labels['rooms.copy'] === copy.id)!.id);
    await transition(runner.sql, copy.id, ['running'], 'ended', { set: { endReason: 'left' }, event: 'stop', detail: 'left' });
    ctx.stopping.delete(copy.id);

    await reconcileUsage(ctx, { since });
    expect((await runner.containers()).map((c) => c.labels['rooms.copy'])).not.toContain(copy.id);
    const billed = (await billedOf(copy.id))!;
    expect(billed.engineStartedAt).not.toBeNull();
    expect(billed.engineFinishedAt).not.toBeNull();
    const judged = await reconcileUsage(ctx, { since });
    expect(judged.differences.filter((d) => d.copyId === copy.id)).toEqual([]);
  });

  it("hands the engine's record to be kept before the engine forgets the container (a runner killed in between keeps it)", async () => {
    const copyId = randomUUID();
    await startInEngine(copyId);
    let held: unknown;
    const run = await runner.engine.stop(
      { runnerId: runner.runnerId, copyId },
      { read: async (r) => void (held = await runner.engine.state(r.handle)) },
    );
    expect(held).toMatchObject({ status: 'exited' });
    expect(run?.finishedAt).toBeInstanceOf(Date);
    expect(await runner.engine.state(run!.handle)).toBeNull();
  });

  it('does not void a copy closed because the engine said it exited, whose container went before the removal read it', async () => {
    // The engine reported its exit (137), so it ran; its container was gone when the runner's
    // removal asked (another removal first), so the row says "the engine held nothing". Nothing
    // to judge by: unjudged, never voided as never-ran (issue 46).
    const killed = await warmRecord(runner, b);
    await transition(runner.sql, killed.id, ['creating'], 'starting', { now: ['startedAt'], event: 'start' });
    await transition(runner.sql, killed.id, ['starting'], 'running', { now: ['readyAt'], event: 'ready' });
    await stopCopy(runner.service.ctx, killed.id, 'oom');
    const billed = (await billedOf(killed.id))!;
    expect(billed).toMatchObject({ engineStartedAt: null });
    expect(billed.engineCheckedAt).not.toBeNull();
    expect(billed.billedSeconds).toBeGreaterThan(0);

    const pass = await reconcileUsage(runner.service.ctx, { since });
    expect(pass.differences.filter((d) => d.copyId === killed.id)).toEqual([]);
    expect(pass.unjudged).toBeGreaterThan(0);
    expect(await billedOf(killed.id)).toMatchObject({ billedSeconds: billed.billedSeconds, voided: false });
  });
});

// A lost host's copies billed to the engine's finish, not its last beat (issue 46): a host of the
// survivor's fleet goes silent with a copy running and one it had ended without removing its
// container; on one podman, the survivor's engine sees both containers. Settling ends the first
// at the host's last beat; the survivor's engine then stops both, the first's stop is dated at
// podman's FinishedAt, and the second's engine time after its stop is accounted as unowned.

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

    const billedHere = new Map((await billedCopiesOf(runner.sql, lostId, { start: since, end: new Date() })).map((c) => [c.copyId, c]));
    const [stop] = await runner.sql<{ at: Date }[]>`select at from copy_events where copy_id = ${running} and kind = 'stop'`;
    const r = billedHere.get(running)!;
    expect(r.engineFinishedAt).not.toBeNull();
    expect(stop.at).toEqual(r.engineFinishedAt);
    expect(r.billedSeconds).toBeCloseTo((r.engineFinishedAt!.getTime() - r.engineStartedAt!.getTime()) / 1000, 3);
    const u = billedHere.get(unremoved)!;
    expect(u.billedSeconds).toBeCloseTo((u.engineFinishedAt!.getTime() - u.engineStartedAt!.getTime()) / 1000, 3);
    await runner.sql`delete from runner_hosts where id = ${lostId}`;
  });
  it("bills a lost host's copy left through a survivor to its host's last beat, not to the leave", async () => {
    // The host died with its machine a minute after the copy started, 30 s after its last beat:
    // no engine holds the copy any more. The room, seeing the host silent for RUNNER_HOST_LOST_S,
    // sends the viewer's leave to this host before any survivor has settled the dead one.
    const lostId = `lost-${randomUUID().slice(0, 8)}`;
    const fleet = runner.settings.fleet;
    await beat(runner.sql, { id: lostId, fleet, apiUrl: 'http://127.0.0.1:1', copyOrigin: null, slots: 2 });
    const startedAt = new Date(Date.now() - 90_000);
    const lastBeat = new Date(startedAt.getTime() + 60_000);
    const sessionId = randomUUID();
    const row = await insertCopy(runner.sql, { ...b, id: randomUUID(), runnerId: lostId, sessionId, origin: 'viewer', state: 'creating' });
    await transition(runner.sql, row.id, ['creating'], 'starting', { set: { startedAt }, at: startedAt, event: 'start' });
    await transition(runner.sql, row.id, ['starting'], 'running', {
      now: ['readyAt'],
      event: 'ready',
      at: new Date(startedAt.getTime() + 500),
    });
    await runner.sql`update runner_hosts set seen_at = ${lastBeat} where id = ${lostId}`;

    const view = await runner.service.leave(sessionId);

    // Ended as a lost host's copy, at its last beat: billed the minute its engine may have run it,
    // not the half minute more until the leave; and no engine record of this host's kept for it
    // (this engine never held it: kept, it would read "never ran", and be voided).
    expect(view.state).toBe('gone');
    const ended = (await copyById(runner.sql, row.id))!;
    expect([ended.state, ended.endReason]).toEqual(['ended', 'host-lost']);
    const [stop] = await runner.sql<{ at: Date }[]>`select at from copy_events where copy_id = ${row.id} and kind = 'stop'`;
    expect(stop.at).toEqual(lastBeat);
    const billed = (await billedCopiesOf(runner.sql, lostId, { start: new Date(startedAt.getTime() - 1_000), end: new Date() })).find(
      (c) => c.copyId === row.id,
    )!;
    expect(billed.billedSeconds).toBeCloseTo(60, 3);
    expect(billed.engineCheckedAt).toBeNull();
    await runner.sql`delete from runner_hosts where id = ${lostId}`;
  });
});
