import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '../../services/core/infra/db.js';
import { liveHostIds } from '../../services/data/runner-hosts.sql.js';
import { admitQueuedOnce } from './admission-batch.js';
import { createAdmissionBatcher } from './admission-batcher.js';
import type { Admission } from './copy-admission.js';
import { removeResources } from './copy-control.js';
import { startCopy } from './copy-starter.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { createLimit } from '../engine/limit.js';
import { topUpWarmPool } from '../loops/warm-pool.js';
import type { RunnerContext } from '../service/runner-context.js';

// What follows an admission decision, for viewers arriving (sessions/session-entry.ts, through
// the batcher) and for the passes that admit waiting viewers when a slot frees (runner-loops.ts).

/** A pass that found workspaces another host was letting in tries again this often, this many times. */
const SKIPPED_RETRY_MS = 100;
const SKIPPED_RETRIES = 20;

export function createAdmissionPasses(ctx: RunnerContext, sql: Sql, overSpend: () => Promise<boolean>) {
  const batcher = createAdmissionBatcher(sql, ctx.host);
  const startLimit = createLimit(ctx.settings.startConcurrency);

  /**
   * Starts an admitted copy when one of the host's start slots is free (JupyterHub's
   * concurrent_spawn_limit): a crowd's starts then take the database and the engine a few dozen
   * at a time, and the next viewers' admissions are not stuck behind thousands of starts' writes.
   * A copy waiting its turn counts as starting (the reconcile leaves it alone), and a viewer who
   * leaves meanwhile withdraws it before anything is made.
   */
  let inLine = 0;
  function startInTurn(row: CopyRow, askedAt: number): void {
    const turn = new AbortController();
    ctx.starting.set(row.id, turn);
    inLine++;
    void startLimit(async () => {
      inLine--;
      if (turn.signal.aborted) {
        if (ctx.starting.get(row.id) === turn) ctx.starting.delete(row.id);
        return;
      }
      await startCopy(ctx, row, { askedAt });
    });
  }

  /** Acts on an admission: starts the copy reserved, removes copies given up for it. */
  function afterAdmission(a: Admission, askedAt = Date.now()): void {
    if (a.kind !== 'admitted' && a.kind !== 'claimed') return;
    for (const victim of a.evicted) {
      if (victim.runnerId === ctx.settings.runnerId) void removeResources(ctx, victim.id, victim.seq);
      ctx.waiters.wake(victim.sessionId);
    }
    if (a.kind === 'admitted') startInTurn(a.copy, askedAt);
    ctx.waiters.wake(a.copy.sessionId);
  }

  let passing = false;
  let again = false;

  /**
   * Admits the viewers held back, in order, as far as the caps allow. Passes never overlap in a
   * process: one asked for while another runs makes that one go round again. A pass goes round
   * while it lets anyone in (the host may have room for more), and a little later when every
   * workspace it found was being let in by another host (that host may fill before it is done).
   */
  async function admitWaiting(): Promise<void> {
    if (!ctx.hostGuard.copies) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    try {
      let retries = 0;
      do {
        again = false;
        // In a fleet, the queue of every live host is this one's to let in too (docs/runner.md, "Placement").
        const { advertise, fleet, hostLostMs, runnerId } = ctx.settings;
        const peers = advertise ? (await liveHostIds(sql, fleet, hostLostMs / 1000)).filter((id) => id !== runnerId) : [];
        const pass = await admitQueuedOnce(sql, ctx.host, peers, (a) => afterAdmission(a));
        if (pass.let) {
          ctx.waiters.wakeAll();
          again = true;
        } else if (pass.skipped && retries++ < SKIPPED_RETRIES) {
          await sleep(SKIPPED_RETRY_MS);
          again = true;
        }
      } while (again);
    } finally {
      passing = false;
    }
  }

  /** Fills the warm pools (of one build with `only`), unless the spend limit is reached. */
  async function topUp(only?: string): Promise<void> {
    if (!ctx.hostGuard.copies) return;
    await topUpWarmPool(ctx, { only, overSpend: await overSpend() });
  }

  /** Whether admitted copies wait for a start slot now (a crowd is being started). */
  const startsQueued = () => inLine > 0;

  return { admit: batcher.admit, startsQueued, afterAdmission, admitWaiting, topUp, close: batcher.close };
}

export type AdmissionPasses = ReturnType<typeof createAdmissionPasses>;
