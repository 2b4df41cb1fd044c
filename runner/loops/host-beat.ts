import { beat, type LostHost, settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import type { RunnerContext } from '../service/runner-context.js';
import { endLostRuns } from './lost-host-runs.js';

// A runner host in its fleet (docs/runner.md, "Several runner hosts"): it registers and beats
// every `beatMs` in runner_hosts, so the room and the api can place viewers on it and reach its
// API; and, as any survivor does, it settles hosts of its fleet that stopped beating: their
// copies end once (`host-lost`, usage stopped at the last beat, then at the engine's finish where
// this host's engine can see their units: lost-host-runs.ts), their queued viewers move here.

/**
 * Every second: a lost host's copies no survivor's engine can see are billed up to its last beat,
 * so the beat's period is how much engine time a machine that dies can leave unbilled per copy;
 * at 1 s it is within billing's tolerance (issue 46, docs/runner.md "Usage and billing").
 * RUNNER_HOST_LOST_S (20 by default, 10 at least) spans many missed beats.
 */
export const beatMs = 1_000;
/** Survivors look for lost hosts this often: losing one is a matter of RUNNER_HOST_LOST_S, not of the beat. */
const settleMs = 5_000;
const lastSettle = new WeakMap<RunnerContext, number>();

export async function beatAndSettle(ctx: RunnerContext): Promise<void> {
  const { sql, settings } = ctx;
  if (!settings.advertise) return;
  await beat(sql, {
    id: settings.runnerId,
    fleet: settings.fleet,
    apiUrl: settings.advertise.apiUrl,
    copyOrigin: settings.advertise.copyOrigin,
    slots: settings.hostCapacity,
  });
  if (Date.now() - (lastSettle.get(ctx) ?? 0) < settleMs) return;
  lastSettle.set(ctx, Date.now());
  await settleLost(ctx);
}

/**
 * Settles the hosts of this host's fleet that stopped beating (RUNNER_HOST_LOST_S), as a survivor:
 * their copies end once at their last beat, then at the engine's finish where this host's engine
 * sees their units (started here, not waited for); their queue moves here. The hosts settled.
 */
export async function settleLost(ctx: RunnerContext): Promise<LostHost[]> {
  const { sql, settings, log } = ctx;
  const lost = await settleLostHosts(sql, settings.fleet, settings.runnerId, settings.hostLostMs / 1000);
  for (const h of lost) {
    log.warn({ host: h.id, lastBeat: h.seenAt, copiesEnded: h.ended, queueMoved: h.movedQueue }, 'runner host lost');
    // Off the caller's path: stopping a lost host's units takes the engine seconds, and a survivor
    // that stopped beating meanwhile would look lost itself.
    void endLostRuns(ctx, h).then(
      (r) => log.info({ host: h.id, ...r }, "lost host's copies dated at the engine's finish"),
      (err: Error) => log.warn({ host: h.id, err: err.message }, "lost host's units not ended: its copies stay billed to its last beat"),
    );
  }
  if (lost.length) {
    // Their viewers' long-polls answer `gone: host-lost` now, and the moved queue is ours to let in.
    ctx.waiters.wakeAll();
    ctx.kick();
  }
  return lost;
}
