import { keepEngineRun } from '../../services/data/usage-reconciliation.sql.js';
import type { LostHost } from '../../services/data/runner-hosts.sql.js';
import { accountRun } from '../copies/unowned-copies.js';
import { throughOutage } from '../copies/through-outage.js';
import type { RunnerContext } from '../service/runner-context.js';

// A lost host's copies, as the engine saw them end (issue 46; docs/runner.md "Usage and billing").
// Settling a lost host ends its copies with a `stop` dated at its last beat: the one moment the
// records know. Billed moments are the engine's, though, and a survivor's engine may still see the
// lost host's units: one podman or Docker shared by the hosts (this machine's), and on Kubernetes
// always (the pods run on in the cluster after their runner went). So the survivor has its engine
// end each (one still running is stopped now) and remove it, and dates each copy's `stop` at the
// engine's finish (keepEngineRun, by the seq the settling wrote). A unit whose record had ended
// before (a stop the host wrote and did not carry out) or that no record owns is accounted as an
// orphan's: its engine time after the last billed moment goes to its workspace, marked `unowned`.
// A copy no engine can see (another machine's Docker) keeps its last beat.

/** What the survivor's engine told of the lost host: copies re-dated at the engine's finish, and seconds accounted as unowned. */
export interface LostRuns {
  dated: number;
  unownedSeconds: number;
}

export async function endLostRuns(ctx: RunnerContext, host: Pick<LostHost, 'id' | 'copies'>): Promise<LostRuns> {
  const settled = new Map(host.copies.map((c) => [c.copyId, c.seq]));
  const out: LostRuns = { dated: 0, unownedSeconds: 0 };
  for (const run of await ctx.engine.endRunsOf(host.id)) {
    if (!run.copyId) continue;
    const seq = settled.get(run.copyId);
    if (seq !== undefined) {
      await throughOutage(() => keepEngineRun(ctx.sql, run.copyId, run, seq));
      if (run.finishedAt) out.dated++;
    } else {
      out.unownedSeconds += (await accountRun(ctx, run, host.id)) ?? 0;
      await throughOutage(() => keepEngineRun(ctx.sql, run.copyId, run));
    }
  }
  return out;
}
