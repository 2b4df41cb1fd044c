import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Refusal } from '../rules/errors.js';

// Rate limits kept in Redis, so every api process counts the same requests (a process's memory
// would give each replica its own allowance). A fixed window per rule and subject: INCR, and
// EXPIRE when the window opens, in one script so a crash between the two cannot leave a counter
// that never expires. Subjects are hashed: an email address never sits in Redis in the clear.

export interface RateRule {
  /** Names the counter, e.g. `sign-in:email`. */
  name: string;
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
  /** The words of the 429 (spec 7: "how many a day"). */
  text: string;
}

const COUNT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('TTL', KEYS[1])}`;

export function createRateLimiter(redis: Redis, prefix: string) {
  const keyOf = (rule: RateRule, subject: string) =>
    `${prefix}:rate:${rule.name}:${createHash('sha256').update(subject).digest('base64url').slice(0, 22)}`;
  return {
    /** Counts one request of `subject`; throws the spec's 429 (with `retryAfter`, seconds) past the rule's limit. */
    async take(rule: RateRule, subject: string): Promise<void> {
      const [count, ttl] = (await redis.eval(COUNT, 1, keyOf(rule, subject), rule.windowSeconds)) as [number, number];
      if (count > rule.limit) {
        throw new Refusal(429, rule.text, 'rate', { retryAfter: Math.max(1, ttl) });
      }
    },
  };
}
