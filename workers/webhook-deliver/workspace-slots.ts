import type { Redis } from 'ioredis';

// Fair webhooks (security-4 M3): every tenant's deliveries share one webhook.deliver queue and its
// worker slots, and an attempt may wait on someone else's server for connect + answer (15 s by
// default). A workspace may hold only WEBHOOKS_WORKSPACE_CONCURRENCY attempts at once, counted in
// Redis so every worker process counts the same ones (BullMQ's open-source edition has no group
// concurrency). A job whose workspace has no free slot goes back to the delayed set at once
// (webhook-deliver.job.ts), so it never holds a worker slot while it waits.
//
// The count is a sorted set per workspace: member = the job's id, score = when its lease ends
// (Redis's own clock, ms). A worker that dies mid-attempt leaves a member that lapses at its
// lease's end, so a crash cannot take a slot for ever.

const TAKE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], lease)
  return 1
end
return 0`;

export interface WorkspaceSlots {
  /** Takes one of the workspace's slots for `holder` (a job id); false when all are held. */
  take(workspaceId: string, holder: string): Promise<boolean>;
  release(workspaceId: string, holder: string): Promise<void>;
}

/**
 * `limit` attempts at once per workspace, each lease `leaseMs` long: longer than an attempt can
 * last (connect + answer timeouts and the bookkeeping around them).
 */
export function workspaceSlots(redis: Redis, prefix: string, limit: number, leaseMs: number): WorkspaceSlots {
  const keyOf = (workspaceId: string) => `${prefix}:webhooks:slots:${workspaceId}`;
  return {
    async take(workspaceId, holder) {
      return (await redis.eval(TAKE, 1, keyOf(workspaceId), holder, limit, leaseMs)) === 1;
    },
    async release(workspaceId, holder) {
      await redis.zrem(keyOf(workspaceId), holder);
    },
  };
}
