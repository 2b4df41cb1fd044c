import { setTimeout as sleep } from 'node:timers/promises';
import { copies as copiesGauge, orphanCopiesRemoved } from '../../services/core/infra/metrics.js';
import type { Listed } from '../engine/copy-engine.js';
import type { RunnerContext } from '../service/runner-context.js';
import { countsByState, endAbandonedQueue, liveCopiesOf, transition, type CopyRow } from '../../services/data/copies.sql.js';
import { failCopy, looksOom, stopCopy } from '../copies/copy-control.js';
import { recordExit } from '../copies/copy-exits.js';
import { startCopy } from '../copies/copy-starter.js';
import { endUnowned, type UnownedEnd } from '../copies/unowned-copies.js';

// Engine, records and routes agree after this (JupyterHub's init_spawners, tmpnb's heartbeat):
//   a container of this runner that no live record knows (or whose record ended) is removed;
//   a record whose container vanished is closed ("vanished"), or failed if it never got going;
//   a running container whose record is live is adopted: records are the whole state, so a
//     restarted runner needs nothing else to serve it, pause it or remove it later;
//   a start a dead runner left half-done is carried on (probe, then ready) if its container runs;
//   a record that says paused while the container runs (or the reverse) is set right, with the
//     usage event it missed;
//   what the engine holds for a copy with no live record is removed (engine.list lists leftovers
//     of a start or a crash too: for Docker, networks and writable places without a container),
//     and the engine time no record billed is accounted to its workspace as 'unowned';
//   queued viewers the room stopped asking about are let go.
// Only things carrying this runner's id are looked at. Copies this process is starting or stopping
// right now are left to the code doing it (a start ends by RUNNER_START_DEADLINE_S).
//
// Bounded in time: copies no record owns are removed side by side (the engine's own limit spaces
// its calls), and a pass waits for them at most one reconcile period. One still being removed then
// stays in ctx.stopping, so the next pass leaves it alone; each removal is counted once, when the
// engine has done it (runner_orphan_copies_removed_total). So a copy no record owns is removed by
// the first pass that begins after it appeared (a pass begins at most 1.1 × RUNNER_RECONCILE_S after
// the last one ended), or, when this process was starting it, by the first after its start's deadline.

/**
 * What an interrupted start may be failed from. The engine is listed before the records are read
 * and this process's starts are checked last, so a start that finished in between looks
 * interrupted (made, not running, not starting here): its copy is running by then, and is left so.
 */
const UNSTARTED = ['creating', 'starting'] as const;

export async function reconcile(
  ctx: RunnerContext,
  opts: { initial?: boolean } = {},
): Promise<{ adopted: number; removed: number; closed: number }> {
  const s = ctx.settings;
  // The engine first, records second: a record is always written before the engine is asked, so
  // every copy listed here already has its record in what is read next.
  const listed = await ctx.engine.list(s.runnerId);
  const rows = await liveCopiesOf(ctx.sql, s.runnerId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const busy = (id: string) => ctx.starting.has(id) || ctx.stopping.has(id);
  const withContainer = new Set<string>();
  const orphans: Listed[] = [];
  let adopted = 0;
  let closed = 0;

  for (const c of listed) {
    const copyId = c.copyId;
    if (busy(copyId)) {
      if (c.handle) withContainer.add(copyId);
      continue;
    }
    const row = byId.get(copyId);
    if (!row || row.state === 'queued') {
      // Not live: whatever the engine holds for it goes (a container, or what a start or a crash left).
      orphans.push(c);
      continue;
    }
    // Only leftovers of a live copy: its record is closed below (vanished), which removes them.
    if (!c.handle) continue;
    withContainer.add(row.id);
    if (c.status === 'exited' || c.status === 'other') {
      const state = await ctx.engine.state(c.handle);
      const oom = looksOom(state?.exitCode ?? null, state?.oomKilled ?? false);
      if (state?.status === 'exited')
        await recordExit(ctx, { ...row, containerId: c.handle }, { exitCode: state.exitCode, oom, healthy: row.readyAt !== null });
      if (row.readyAt) await stopCopy(ctx, row.id, oom ? 'oom' : 'exited');
      else await failCopy(ctx, row.id, oom ? 'oom' : 'exited', 'the copy exited while the runner was away');
      closed++;
      continue;
    }
    if (c.status === 'created') {
      // Made but never started by a runner that died: nothing to adopt.
      await failCopy(ctx, row.id, 'interrupted', 'the runner stopped while starting the copy', UNSTARTED);
      closed++;
      continue;
    }
    adopted++;
    if (row.state === 'creating' || row.state === 'starting') {
      await adoptStart(ctx, row, c.handle);
    } else if (c.status === 'running' && row.state === 'paused') {
      await transition(ctx.sql, row.id, ['paused'], 'running', {
        set: { containerId: c.handle },
        now: ['activeAt'],
        event: 'resume',
        detail: 'reconciled',
      });
    } else if (c.status === 'paused' && (row.state === 'running' || row.state === 'warm')) {
      if (row.state === 'warm') await ctx.engine.resume?.(c.handle).catch(() => {});
      else await transition(ctx.sql, row.id, ['running'], 'paused', { now: ['pausedAt'], event: 'pause', detail: 'reconciled' });
    }
  }

  const removed = await removeOrphans(ctx, orphans, s.reconcileMs);

  // A record admitted a moment ago may not have reached its starter yet; at start-up nothing of
  // this process is in flight, so every such record is one a dead runner left.
  const settling = (r: CopyRow) => !opts.initial && r.state === 'creating' && Date.now() - (r.admittedAt ?? r.askedAt).getTime() < 30_000;
  for (const row of rows) {
    if (row.state === 'queued' || withContainer.has(row.id) || busy(row.id) || settling(row)) continue;
    if (row.state === 'creating' || row.state === 'starting')
      await failCopy(ctx, row.id, 'interrupted', 'the runner stopped while starting the copy', UNSTARTED);
    else {
      // Not listed, but perhaps started after the engine was listed (a crowd's starts finish while
      // a pass runs): asked once more by its own handle before it is closed as vanished.
      if (row.containerId && (await ctx.engine.state(row.containerId).catch(() => null))) continue;
      await stopCopy(ctx, row.id, 'vanished');
    }
    closed++;
  }

  const abandoned = await endAbandonedQueue(ctx.sql, s.runnerId, s.abandonMs);
  if (abandoned.length) ctx.waiters.wakeAll();

  await updateGauges(ctx);
  if (removed || closed) ctx.log.info({ adopted, removed, closed }, 'reconciled');
  return { adopted, removed, closed };
}

/**
 * Removes what the engine holds for copies no live record owns, side by side, waiting at most
 * `boundMs`; the number of copies (containers, pods) removed by then, each also pushed to `ended`
 * with the engine seconds accounted to its workspace (copies/unowned-copies.ts). Leftovers without
 * one (a network, a writable place) are removed but not counted as copies.
 */
export async function removeOrphans(ctx: RunnerContext, orphans: Listed[], boundMs: number, ended: UnownedEnd[] = []): Promise<number> {
  if (!orphans.length) return 0;
  let removed = 0;
  const removals = orphans.map(async (c) => {
    ctx.stopping.add(c.copyId);
    try {
      const end = await endUnowned(ctx, c);
      if (c.handle) {
        removed++;
        orphanCopiesRemoved.inc();
        ended.push(end);
        ctx.log.info({ copyId: c.copyId, handle: c.handle, labels: c.labels, unownedSeconds: end.seconds }, 'copy no record owns removed');
      }
    } catch (err) {
      ctx.log.warn({ copyId: c.copyId, err: (err as Error).message }, 'copy not removed');
    } finally {
      ctx.stopping.delete(c.copyId);
    }
  });
  const bound = new AbortController();
  const waited = await Promise.race([
    Promise.all(removals).then(() => true),
    sleep(boundMs, false, { signal: bound.signal, ref: false }).catch(() => false),
  ]);
  bound.abort();
  if (!waited) ctx.log.warn({ orphans: orphans.length, removed, boundMs }, 'reconcile: copies still being removed after a period');
  return removed;
}

/** A start left half-done by a runner that died: the container runs, so probe it and carry on. */
async function adoptStart(ctx: RunnerContext, row: CopyRow, containerId: string) {
  const recorded = row.state === 'creating' ? await transition(ctx.sql, row.id, ['creating'], 'starting', { set: { containerId } }) : row;
  if (!recorded) return;
  if (!recorded.startedAt) {
    // The runner died between the engine's start and its record of it: the copy has run since the
    // engine started it, not since now. Its start is dated at the engine's StartedAt, else that
    // time (the runner's downtime) would be engine time no record bills.
    const run = (await ctx.engine.runs(ctx.settings.runnerId).catch(() => [])).find((r) => r.copyId === row.id);
    const at = run?.startedAt && run.startedAt.getTime() <= Date.now() ? run.startedAt : null;
    await transition(ctx.sql, row.id, ['starting'], 'starting', {
      ...(at ? { set: { startedAt: at }, at } : { now: ['startedAt'] }),
      event: 'start',
      detail: 'reconciled',
    });
  }
  void startCopy(ctx, { ...recorded, state: 'starting' }, { adoptContainer: containerId });
}

export async function updateGauges(ctx: RunnerContext): Promise<void> {
  const n = await countsByState(ctx.sql, ctx.settings.runnerId);
  copiesGauge.set({ state: 'starting' }, (n.creating ?? 0) + (n.starting ?? 0));
  copiesGauge.set({ state: 'running' }, n.running ?? 0);
  copiesGauge.set({ state: 'warm' }, n.warm ?? 0);
  copiesGauge.set({ state: 'paused' }, n.paused ?? 0);
  copiesGauge.set({ state: 'held_back' }, n.queued ?? 0);
}
