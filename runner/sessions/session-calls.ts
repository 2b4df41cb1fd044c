import { type Call, type CallsReply, type CopyView, RunnerRefusal } from '@demo-rooms/contract/runner';
import { copyById, copyOfSession, type CopyRow } from '../../services/data/copies.sql.js';
import { runCalls } from '../copies/calls.js';
import { resumeCopy, stopCopy } from '../copies/copy-control.js';
import { endWritesOf } from '../copies/end-writes.js';
import { settleLost } from '../loops/host-beat.js';
import { viewOf } from '../copies/copy-view.js';
import type { RunnerContext } from '../service/runner-context.js';
import { touch } from './session-entry.js';
import { sessionReaderOf } from './session-reads.js';

// What a viewer does on their copy, and their leaving: controls and story calls run in order on
// the session's own copy; leaving ends it (or gives up the place in the queue).

export function createSessionCalls(ctx: RunnerContext) {
  const { sql, settings } = ctx;

  async function calls(sessionId: string, list: Call[]): Promise<CallsReply> {
    let row = await copyOfSession(sql, sessionId);
    // A copy still starting is waited for: the calls run before the step shows.
    const until = Date.now() + settings.healthTimeoutMs + 5_000;
    while (row && (row.state === 'creating' || row.state === 'starting') && Date.now() < until) {
      await ctx.waiters.wait(sessionId, 1_000);
      row = await copyOfSession(sql, sessionId);
    }
    if (row?.state === 'paused') {
      const resumed = await resumeCopy(ctx, row);
      row = resumed ?? (await copyOfSession(sql, sessionId));
    }
    if (!row || row.state !== 'running') throw new RunnerRefusal(409, 'the session has no running copy', await viewOf(sql, row));
    await touch(sql, row);
    const outcomes = await runCalls({ host: row.host!, port: row.port! }, list, settings.callTimeoutMs);
    return { copy: await viewOf(sql, row), outcomes };
  }

  async function leave(sessionId: string): Promise<CopyView> {
    const row = await sessionReaderOf(sql)(sessionId, 'none');
    if (!row || row.state === 'ended') return viewOf(sql, row);
    if (row.runnerId !== settings.runnerId && row.state !== 'queued') return leaveElsewhere(sessionId, row);
    const ended = await stopCopy(ctx, row.id, 'left');
    if (row.state === 'queued') ctx.waiters.wakeAll();
    return viewOf(sql, ended ?? (await copyOfSession(sql, sessionId)));
  }

  /**
   * A copy another host runs, left through this one: the room sends a session's calls elsewhere
   * only once the copy's host has not beaten for RUNNER_HOST_LOST_S, so that host is most likely
   * dead, and its engine (and the copy) with it. Ended here, it would be billed to now, and this
   * host's engine, which never held it, would be kept as its record ("never ran"). So the lost
   * hosts are settled first: the copy ends at its host's last beat (then at the engine's finish
   * where this host's engine sees the unit), as a lost host's copies do. A host that still beats
   * (the room's picture was stale) keeps its unit: the record ends here, and that host's
   * reconcile removes the unit and bills what its engine ran after this stop, as unowned.
   */
  async function leaveElsewhere(sessionId: string, row: CopyRow): Promise<CopyView> {
    await settleLost(ctx);
    const now = await copyById(sql, row.id);
    if (!now || now.state === 'ended') return viewOf(sql, now);
    const ended = await endWritesOf(sql).ended({ id: row.id, reason: 'left', kind: 'stop', detail: 'left' });
    if (ended) ctx.waiters.wake(ended.sessionId);
    return viewOf(sql, ended ?? (await copyOfSession(sql, sessionId)));
  }

  return { calls, leave };
}
