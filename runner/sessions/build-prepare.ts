import { setTimeout as sleep } from 'node:timers/promises';
import { type PrepareReply, RunnerRefusal } from '@demo-rooms/contract/runner';
import { unclaimedCopiesOf } from '../../services/data/copies.sql.js';
import { NoSuchBuild } from './build-runs.js';
import type { RunnerContext } from '../service/runner-context.js';

/** Loads a build's image (best effort, when it goes live) and tops up its warm pool. */
export async function prepareBuild(
  ctx: RunnerContext,
  topUp: (buildId: string) => Promise<void>,
  buildId: string,
  waitMs = 0,
): Promise<PrepareReply> {
  const { sql, settings } = ctx;
  const run = await ctx.runs(buildId).catch((err) => {
    if (err instanceof NoSuchBuild) throw new RunnerRefusal(404, 'no such build');
    throw err;
  });
  if (run.kind !== 'container') throw new RunnerRefusal(404, 'not a container build');
  if (settings.workspaces && !settings.workspaces.includes(run.workspaceId))
    throw new RunnerRefusal(404, 'this runner does not serve that workspace');
  const loading = ctx.images.ensure(buildId).then(() => topUp(buildId));
  loading.catch(() => {});
  const outcome = await Promise.race([
    loading.then(
      () => ({ image: 'ready' as const }),
      (err: Error) => ({ image: 'failed' as const, detail: err.message }),
    ),
    sleep(waitMs).then(() => ({ image: 'loading' as const })),
  ]);
  return { ...outcome, warm: await unclaimedCopiesOf(sql, settings.runnerId, buildId) };
}
