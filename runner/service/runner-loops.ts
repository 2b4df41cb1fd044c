import { setTimeout as sleep } from 'node:timers/promises';
import type { AdmissionPasses } from '../copies/admission-passes.js';
import type { BackgroundWork } from './background-work.js';
import { onCopyExit, stopCopy } from '../copies/copy-control.js';
import { endUnowned } from '../copies/unowned-copies.js';
import { followExits, type ExitFollower } from '../loops/exit-follower.js';
import { beatAndSettle, beatMs } from '../loops/host-beat.js';
import { cullIdle } from '../loops/idle.js';
import { freshenStatistics, STATISTICS_MS } from '../loops/planner-statistics.js';
import { reconcile, updateGauges } from '../loops/reconcile.js';
import { LOOP_WINDOW_MS, reconcileUsage } from '../loops/usage-reconcile.js';
import type { RunnerContext } from './runner-context.js';
import { NO_HOST_TO_GUARD } from '../engine/host-engine.js';
import type { RouteSync } from '../dataplane/route-sync.js';
import { liveCopiesOf } from '../../services/data/copies.sql.js';

// The runner's background side: the host guard, the engine's exits, reconcile and
// adoption after a restart, the culler, image collection, gauges and warm pools.

export function createRunnerLoops(ctx: RunnerContext, passes: AdmissionPasses, work: BackgroundWork, routes: RouteSync | null = null) {
  const { sql, engine, log, settings } = ctx;
  const { admitWaiting, topUp } = passes;
  const every = work.every;
  let exits: ExitFollower | null = null;

  return {
    /** Guard, exits, a first reconcile (adopting what a previous run left), then the loops. */
    async start(): Promise<void> {
      // Only an engine on this host has a host to guard; on Kubernetes the copies' NetworkPolicy is the guard.
      ctx.hostGuard = ctx.hostEngine
        ? await ctx.hostEngine.guardHost({ mode: settings.hostGuard, iptables: settings.iptables, log })
        : NO_HOST_TO_GUARD;
      exits = followExits({
        engine,
        runnerId: settings.runnerId,
        log,
        onExit: (e) => void onCopyExit(ctx, e).catch((err) => log.error({ err, copyId: e.copyId }, 'exit not handled')),
        onResume: () => void reconcile(ctx).catch((err) => log.error({ err }, 'reconcile failed')),
      });
      await exits.ready;
      await reconcile(ctx, { initial: true });
      // The data plane's whole map from the records, then kept in step (dataplane/route-sync.ts).
      if (routes) {
        await routes.start();
        // A revoke made by the api reaches the data plane within half a second (issue 31: a revoked
        // viewer's open WebSocket closes within a second); what viewers used is read every 2 s.
        every(500, () => routes.tick(), 'dataplane');
        every(2_000, () => routes.reportActivity(), 'dataplane-activity');
      }
      await admitWaiting();
      // Registered once the first reconcile has adopted what a previous run left: placement may send viewers now.
      await beatAndSettle(ctx);
      if (settings.advertise) every(beatMs, () => beatAndSettle(ctx), 'host-beat');
      // In a fleet, a host with room takes the fleet's queued viewers every second, not only when
      // one of its own copies ends: a host that has admitted nobody yet (its first batches came
      // after the others had taken the caps) would otherwise wait for the reconcile while the
      // queue moves only onto the hosts whose copies end.
      if (settings.advertise) every(1_000, () => admitWaiting(), 'queue-pull');
      every(
        settings.reconcileMs,
        async () => {
          await reconcile(ctx);
          await admitWaiting();
          await topUp();
        },
        'reconcile',
      );
      // The culler ticks a few times per idle period and maximum age, at least every 10 s.
      every(Math.min(10_000, settings.idlePauseMs / 4, settings.maxAgeMs / 4), () => cullIdle(ctx), 'idle');
      // Billed seconds against the engine's record over the last hour; a pass makes a bounded number of fixes.
      every(settings.usageReconcileMs, () => reconcileUsage(ctx, { since: new Date(Date.now() - LOOP_WINDOW_MS) }), 'usage-reconcile');
      every(60 * 60 * 1000, () => ctx.images.collect(), 'images');
      every(5_000, () => updateGauges(ctx), 'gauges');
      // The planner's statistics of the tables a crowd fills in seconds, before autovacuum's minute.
      every(STATISTICS_MS, () => freshenStatistics(ctx), 'planner-statistics');
      work.track(topUp().catch((err) => log.error({ err }, 'warm pool top-up failed')));
    },
    /** Stops the loops and the exit stream. Copies are left running: the next runner adopts them. */
    async close(): Promise<void> {
      exits?.stop();
      ctx.waiters.wakeAll();
      await work.close();
    },
    /** Everything this runner holds in the engine, removed and its records ended (tests, and draining a host for good). */
    async drain(): Promise<void> {
      // Closed first: no admission pass may start a copy while the others are being removed.
      await work.close();
      for (let round = 0; round < 5; round++) {
        const rows = await liveCopiesOf(sql, settings.runnerId);
        await Promise.all(rows.map((r) => stopCopy(ctx, r.id, 'drained')));
        const left = await engine.list(settings.runnerId);
        // What no record owns now is ended as the reconcile ends it: its engine time billed as unowned.
        for (const c of left) await endUnowned(ctx, c).catch(() => {});
        if (!rows.length && !left.some((c) => c.handle) && !ctx.starting.size) return;
        await sleep(200);
      }
    },
  };
}
