import type { RunnerContext } from '../service/runner-context.js';
import { pauseCopy, stopCopy } from '../copies/copy-control.js';
import { copiesToCull } from '../../services/data/copies.sql.js';
import { createLimit } from '../engine/limit.js';

// Two idle tiers and a maximum age (JupyterHub's culler, mybinder's max age, Fly's suspend):
//   a viewer's copy without activity for RUNNER_IDLE_PAUSE_S is paused ("paused while away"),
//   paused for RUNNER_IDLE_REMOVE_S it is removed, and no copy lives past RUNNER_MAX_AGE_S.
// Warm copies are not viewers' and never pause; one older than half the maximum age is replaced,
// so a viewer who takes it still has a useful life ahead. Activity is written by the room (proxied
// requests, open WebSockets, the shell's heartbeat), so the culler reads one column. Copies still
// starting are never touched. At most 4 engine actions run at once: a culler must not flood.
// An engine that cannot pause (engine.can.pause false: Kubernetes has no pause) skips the first
// tier: the idle copy is removed where it would have been paused.

const limit = createLimit(4);

export async function cullIdle(ctx: RunnerContext): Promise<{ paused: number; removed: number }> {
  const s = ctx.settings;
  const rows = await copiesToCull(ctx.sql, s.runnerId, s);
  let paused = 0;
  let removed = 0;
  await Promise.all(
    rows
      .filter((r) => r.action && !ctx.stopping.has(r.id))
      .map((r) =>
        limit(async () => {
          if (r.action === 'pause' && ctx.engine.can.pause) {
            await pauseCopy(ctx, r);
            paused++;
          } else {
            await stopCopy(ctx, r.id, r.action === 'pause' ? 'idle' : r.action);
            removed++;
          }
        }),
      ),
  );
  return { paused, removed };
}
