import { planOf } from '../../services/core/rules/plans.js';
import { reserveWarm } from '../copies/copy-admission.js';
import { stopCopy } from '../copies/copy-control.js';
import { startCopy } from '../copies/copy-starter.js';
import type { RunnerContext } from '../service/runner-context.js';
import { liveContainerBuilds, type LiveBuild } from '../../services/data/live-builds.sql.js';
import { warmCopiesNotIn } from '../../services/data/copies.sql.js';

// The warm pool (tmpnb's pool, Fly's pre-created machines): each live container build keeps a
// few copies started and healthy ahead of viewers (the plan's warmCopies, at most RUNNER_WARM_MAX),
// counted against the caps like any copy. A viewer takes one at once (admission claims it), and
// the pool refills in the background, but never while anyone waits in the workspace's queue, and
// never by giving up another copy. A build whose copies keep failing is backed off.

export async function topUpWarmPool(ctx: RunnerContext, opts: { only?: string; overSpend: boolean }): Promise<void> {
  const builds = await liveContainerBuilds(ctx.sql, ctx.settings.workspaces);
  const live = new Set(builds.map((b) => b.buildId));
  // Warm copies of builds no longer live go: nobody will enter them.
  const stale = await warmCopiesNotIn(ctx.sql, ctx.settings.runnerId, [...live]);
  for (const { id } of stale) if (!opts.only) await stopCopy(ctx, id, 'not-live');
  if (ctx.settings.warmMax === 0 || opts.overSpend) return;
  for (const b of builds) {
    if (opts.only && b.buildId !== opts.only) continue;
    await topUpBuild(ctx, b);
  }
}

async function topUpBuild(ctx: RunnerContext, b: LiveBuild): Promise<void> {
  const want = Math.min(planOf(b.plan ?? 'free').warmCopies, ctx.settings.warmMax);
  if (want === 0) return;
  const backoff = ctx.failures.get(b.buildId);
  if (backoff && backoff.until > Date.now()) return;
  // The image first: a warm copy must never wait on a load that a viewer might join.
  try {
    await ctx.images.ensure(b.buildId);
  } catch (err) {
    ctx.log.warn({ buildId: b.buildId, err: (err as Error).message }, 'image of a live build not loaded');
    const f = ctx.failures.get(b.buildId) ?? { count: 0, until: 0 };
    f.count++;
    f.until = Date.now() + Math.min(30_000 * 2 ** (f.count - 1), 600_000);
    ctx.failures.set(b.buildId, f);
    return;
  }
  for (let i = 0; i < want; i++) {
    const row = await reserveWarm(ctx.sql, ctx.host, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId, want });
    if (!row) break;
    void startCopy(ctx, row);
  }
}
