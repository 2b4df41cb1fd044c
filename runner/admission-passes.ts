import type { Sql } from '../services/core/db.js';
import { liveHosts } from '../services/data/runner-hosts.sql.js';
import { admitQueued, type Admission } from './copies/copy-admission.js';
import { removeResources } from './copies/copy-control.js';
import { startCopy } from './copies/copy-starter.js';
import { topUpWarmPool } from './loops/warm-pool.js';
import type { RunnerContext } from './runner-context.js';

// What follows an admission decision, for viewers arriving (sessions/session-entry.ts) and for the
// passes that admit waiting viewers when a slot frees (runner-loops.ts).

export function createAdmissionPasses(ctx: RunnerContext, sql: Sql, overSpend: () => Promise<boolean>) {
  /** Acts on an admission: starts the copy reserved, removes copies given up for it. */
  function afterAdmission(a: Admission, askedAt = Date.now()): void {
    if (a.kind !== 'admitted' && a.kind !== 'claimed') return;
    for (const victim of a.evicted) {
      if (victim.runnerId === ctx.settings.runnerId) void removeResources(ctx, victim.id);
      ctx.waiters.wake(victim.sessionId);
    }
    if (a.kind === 'admitted') void startCopy(ctx, a.copy, { askedAt });
    ctx.waiters.wake(a.copy.sessionId);
  }

  /** Admits the viewers held back, in order, as far as the caps allow. */
  async function admitWaiting(): Promise<void> {
    if (!ctx.hostGuard.copies) return;
    // In a fleet, the queue of every live host is this one's to let in too (docs/runner.md, "Placement").
    const { advertise, fleet, hostLostMs, runnerId } = ctx.settings;
    const peers = advertise ? (await liveHosts(sql, fleet, hostLostMs / 1000)).map((h) => h.id).filter((id) => id !== runnerId) : [];
    const admitted = await admitQueued(sql, ctx.host, peers, (a) => afterAdmission(a));
    if (admitted.length) ctx.waiters.wakeAll();
  }

  /** Fills the warm pools (of one build with `only`), unless the spend limit is reached. */
  async function topUp(only?: string): Promise<void> {
    if (!ctx.hostGuard.copies) return;
    await topUpWarmPool(ctx, { only, overSpend: await overSpend() });
  }

  return { afterAdmission, admitWaiting, topUp };
}

export type AdmissionPasses = ReturnType<typeof createAdmissionPasses>;
