import { type CopyView, type EnterBody, RunnerRefusal } from '@demo-rooms/contract/runner';
import type { Sql } from '../../services/core/infra/db.js';
import { arrivalsDeferred } from '../../services/core/infra/metrics.js';
import { copyOfSession, updateCopy, type CopyRow } from '../../services/data/copies.sql.js';
import { NoSuchBuild } from './build-runs.js';
import { resumeCopy, stopCopy } from '../copies/copy-control.js';
import { viewOf } from '../copies/copy-view.js';
import type { AdmissionPasses } from '../copies/admission-passes.js';
import type { RunnerContext } from '../service/runner-context.js';
import { sessionReaderOf } from './session-reads.js';

// A viewer arriving and staying: enter (admitted, queued, full, or their same copy again), the
// room's long-poll of that copy, and the activity that keeps it awake or wakes it.

/** The viewer is here: the copy counts as seen, and as active when it runs (or is paused). */
export async function touch(sql: Sql, row: CopyRow) {
  await updateCopy(sql, row.id, {}, row.state === 'running' || row.state === 'paused' ? ['seenAt', 'activeAt'] : ['seenAt']);
}

/**
 * How long an enter that admitted the viewer waits for their copy's start to settle, at most (ms):
 * long enough that a start of a few hundred ms is answered running in one trip, short enough that
 * the first answer stays the admission (a real engine's start takes longer; its viewer is told
 * "starting" and long-polls).
 */
const FRESH_SETTLE_MS = 250;

/**
 * How often a long-poll reads the session's copy again (ms). This runner wakes its waiters on
 * every change it makes; the re-read is for changes made elsewhere (another host gave the copy up,
 * or settled this host as lost), which may be seen this much later.
 */
const REREAD_MS = 3_000;

export interface SessionEntryDeps {
  ctx: RunnerContext;
  passes: AdmissionPasses;
  overSpend: () => Promise<boolean>;
  isClosed: () => boolean;
  /** Resolves once this host's data plane routes the session's running copy (route-sync.ts); none without a data plane. */
  routed?: (sessionId: string, copyId: string) => Promise<void>;
}

/** What a newcomer told to ask again reads: high demand, no place (none was taken), when to ask (1–3 s, jittered). */
export function askAgainSoon(random = Math.random): CopyView {
  return { state: 'queued', copyId: null, retryMs: Math.round(1_000 + 2_000 * random()), version: 'busy' };
}

/** The build a viewer asks for is a container build of that project, in a workspace this runner serves; else 404. */
async function checkBuild(ctx: RunnerContext, body: EnterBody) {
  const { workspaces } = ctx.settings;
  if (workspaces && !workspaces.includes(body.workspaceId)) throw new RunnerRefusal(404, 'this runner does not serve that workspace');
  let run;
  try {
    run = await ctx.runs(body.buildId);
  } catch (err) {
    if (err instanceof NoSuchBuild) throw new RunnerRefusal(404, 'no such build');
    throw err;
  }
  if (run.kind !== 'container' || run.workspaceId !== body.workspaceId || run.projectId !== body.projectId)
    throw new RunnerRefusal(404, 'no such container build in that project');
}

export function createSessionEntry({ ctx, passes, overSpend, isClosed, routed }: SessionEntryDeps) {
  const { sql, settings, log } = ctx;
  const sessionCopy = sessionReaderOf(sql);
  /** Newcomers being decided now. */
  let undecided = 0;
  /** The copy as the room is told it: "running" only once the data plane can take the viewer there. */
  async function view(row: CopyRow | null): Promise<CopyView> {
    const told = await viewOf(sql, row);
    if (told.state === 'running' && row?.sessionId && routed) await routed(row.sessionId, row.id);
    return told;
  }
  // One write per couple of seconds per copy is plenty for a culler that thinks in minutes.
  const activeFloorMs = Math.min(2_000, settings.idlePauseMs / 4);

  /** The session's copy, resumed when paused (the viewer is here). A copy that cannot be woken is replaced by a fresh start. */
  async function wake(row: CopyRow, body: EnterBody | null): Promise<CopyView> {
    const resumed = await resumeCopy(ctx, row);
    if (resumed) return view(resumed);
    return enter(row.sessionId!, body ?? { workspaceId: row.workspaceId, projectId: row.projectId, buildId: row.buildId });
  }

  /**
   * Enter, and with `waitMs` wait for a start to settle: the whole wait for a copy that was
   * starting already (the room asks again and long-polls), at most FRESH_SETTLE_MS for one this
   * call admitted, and none while admitted copies wait for a start slot. The admission is the
   * first answer a viewer needs (let in, their place, or full); a crowd's starts take longer than
   * that, and their viewers see "starting" at once and long-poll for the rest instead of waiting
   * on an answer.
   */
  async function enterAndWait(sessionId: string, body: EnterBody, waitMs = 0, gone?: () => boolean): Promise<CopyView> {
    // A newcomer past the host's line of undecided arrivals is told at once to ask again (nothing
    // recorded): a line longer than the host decides within a call's timeout only makes calls
    // time out and come back as reloads. A session that has a copy is never turned away so.
    if (body.fresh && undecided >= settings.arrivalsInFlight) {
      arrivalsDeferred.inc();
      return askAgainSoon();
    }
    if (body.fresh) undecided++;
    let entered: { view: CopyView; fresh: boolean };
    try {
      entered = await enterOnce(sessionId, body, gone);
    } finally {
      if (body.fresh) undecided--;
    }
    if (!waitMs || entered.view.state !== 'starting') return entered.view;
    // Copies waiting for a start slot: a crowd is being started, and this one will not settle soon.
    if (entered.fresh && passes.startsQueued()) return entered.view;
    return watch(sessionId, entered.fresh ? Math.min(waitMs, FRESH_SETTLE_MS) : waitMs, entered.view.version, entered.view);
  }

  async function enter(sessionId: string, body: EnterBody): Promise<CopyView> {
    return (await enterOnce(sessionId, body)).view;
  }

  async function enterOnce(sessionId: string, body: EnterBody, gone?: () => boolean): Promise<{ view: CopyView; fresh: boolean }> {
    const askedAt = Date.now();
    const old = (v: CopyView) => ({ view: v, fresh: false });
    // No guard, no copies (engine/host-guard.ts): the firewall never fails open.
    if (!ctx.hostGuard.copies) throw new RunnerRefusal(503, ctx.hostGuard.refusal ?? 'host guard not installed');
    await checkBuild(ctx, body);
    // A session that never had a copy (as its caller read it): nothing to read or mark seen, and
    // a crowd's first enters skip a round trip each. Keyed as its first attempt, admission answers
    // `existing` if a copy appeared since; that ask is then read as any other.
    if (body.fresh) {
      const first = await admitted(sessionId, body, null, askedAt, gone);
      if (first) return first;
    }
    // Read and marked seen (and active) in one round trip: the viewer is here.
    const current = await sessionCopy(sessionId, 'active', activeFloorMs);
    if (current && current.state !== 'ended') {
      if (current.buildId !== body.buildId) {
        // The project went live with another build: this viewer moves to it.
        await stopCopy(ctx, current.id, 'build-changed');
      } else {
        if (current.state === 'paused') return old(await wake(current, body));
        return old(await view(current));
      }
    } else if (
      current?.endReason?.startsWith('failed:') &&
      current.buildId === body.buildId &&
      !body.retry &&
      current.endedAt &&
      Date.now() - current.endedAt.getTime() < settings.failHoldMs
    ) {
      // Entering again right after "could not start" answers the same: a reload does not start a
      // copy that just failed over and over; the room offers a retry.
      return old(await view(current));
    }
    return (await admitted(sessionId, body, current?.id ?? null, askedAt, gone)) ?? old(await view(await copyOfSession(sql, sessionId)));
  }

  /**
   * The ask decided, keyed by the session and the attempt (this ask is the next after `after`, or
   * the first): let in, queued, full or over spend; null when the session has a copy already.
   */
  async function admitted(
    sessionId: string,
    body: EnterBody,
    after: string | null,
    askedAt: number,
    gone?: () => boolean,
  ): Promise<{ view: CopyView; fresh: boolean } | null> {
    if (await overSpend()) return { view: { state: 'spend', copyId: null, version: 'spend' }, fresh: false };
    const a = await passes.admit({ sessionId, ...body, after, gone });
    if (a.kind === 'full') return { view: { state: 'full', copyId: null, detail: a.reason, version: `full:${a.reason}` }, fresh: false };
    if (a.kind === 'existing') return null;
    passes.afterAdmission(a, askedAt);
    if (a.kind === 'queued') log.info({ copyId: a.copy.id, workspaceId: body.workspaceId }, 'viewer held back: copy cap reached');
    return { view: await view(a.copy), fresh: true };
  }

  /** The session's copy now; `seen` records that the room still asks (a queued viewer who stops asking is let go). */
  async function current(sessionId: string, seen = true): Promise<CopyView> {
    return view(await sessionCopy(sessionId, seen ? 'seen' : 'none'));
  }

  /** Long-poll: the view once it differs from `seen`, or as it is after `waitMs`. Re-read every REREAD_MS, so another runner's changes show too. */
  async function watch(sessionId: string, waitMs = 0, seen?: string, known?: CopyView): Promise<CopyView> {
    const deadline = Date.now() + waitMs;
    // `known`: the view its caller has just read (and recorded as seen): no need to read it again.
    let v = known ?? (await current(sessionId));
    while (seen !== undefined && v.version === seen && Date.now() < deadline && !isClosed()) {
      await ctx.waiters.wait(sessionId, Math.min(REREAD_MS, deadline - Date.now()));
      v = await current(sessionId, false);
    }
    return v;
  }

  async function activity(sessionId: string): Promise<CopyView> {
    const row = await sessionCopy(sessionId, 'active', activeFloorMs);
    if (row?.state === 'paused') return wake(row, null);
    return view(row);
  }

  return { enter, enterAndWait, current, watch, activity };
}
