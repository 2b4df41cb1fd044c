import { type Call, type CallsReply, type CopyView, RunnerRefusal } from '@demo-rooms/contract/runner';
import { copyOfSession } from '../../services/data/copies.sql.js';
import { runCalls } from '../copies/calls.js';
import { resumeCopy, stopCopy } from '../copies/copy-control.js';
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
    const ended = await stopCopy(ctx, row.id, 'left');
    if (row.state === 'queued') ctx.waiters.wakeAll();
    return viewOf(sql, ended ?? (await copyOfSession(sql, sessionId)));
  }

  return { calls, leave };
}
