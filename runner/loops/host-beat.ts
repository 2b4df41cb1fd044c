import { beat, settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import type { RunnerContext } from '../runner-context.js';

// A runner host in its fleet (docs/runner.md, "Several runner hosts"): it registers and beats
// every `beatMs` in runner_hosts, so the room and the api can place viewers on it and reach its
// API; and, as any survivor does, it settles hosts of its fleet that stopped beating: their
// copies end once (`host-lost`, usage stopped at the last beat), their queued viewers move here.

/** Every 5 s: often enough that RUNNER_HOST_LOST_S (20 by default) spans a few missed beats. */
export const beatMs = 5_000;

export async function beatAndSettle(ctx: RunnerContext): Promise<void> {
  const { sql, settings, log } = ctx;
  if (!settings.advertise) return;
  await beat(sql, {
    id: settings.runnerId,
    fleet: settings.fleet,
    apiUrl: settings.advertise.apiUrl,
    copyOrigin: settings.advertise.copyOrigin,
    slots: settings.hostCapacity,
  });
  const lost = await settleLostHosts(sql, settings.fleet, settings.runnerId, settings.hostLostMs / 1000);
  for (const h of lost) log.warn({ host: h.id, lastBeat: h.seenAt, copiesEnded: h.ended, queueMoved: h.movedQueue }, 'runner host lost');
  if (lost.length) {
    // Their viewers' long-polls answer `gone: host-lost` now, and the moved queue is ours to let in.
    ctx.waiters.wakeAll();
    ctx.kick();
  }
}
