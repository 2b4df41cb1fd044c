import { HeadBucketCommand } from '@aws-sdk/client-s3';
import type { Sql } from '../db.js';
import type { Queues } from '../queues.js';
import type { Storage } from '../storage.js';
import { withTimeout } from './with-timeout.js';

/** One check per component a process cannot work without; each resolves when it answers. */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/**
 * What api and workers need: a query, a read on the queues' own connection, and the bucket. Each
 * is a real round trip, so a load balancer stops sending work to a process that cannot reach one.
 */
export function platformChecks(deps: { sql: Sql; storage: Storage; queues: Queues }): ReadinessChecks {
  return {
    postgres: () => deps.sql`select 1`.execute(),
    redis: () => deps.queues.get('archive.unpack').getJobCountByTypes('wait'),
    s3: () => deps.storage.client.send(new HeadBucketCommand({ Bucket: deps.storage.bucket })),
  };
}

export interface Readiness {
  ok: boolean;
  /** Per component: true when it answered in time. */
  checks: Record<string, boolean>;
}

/** Runs every check side by side, each within `timeoutMs`. */
export async function checkReadiness(checks: ReadinessChecks, timeoutMs = 2_000): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(Promise.resolve().then(checks[name]), timeoutMs, name)));
  const byName = Object.fromEntries(names.map((name, i) => [name, results[i].status === 'fulfilled']));
  return { ok: Object.values(byName).every(Boolean), checks: byName };
}
