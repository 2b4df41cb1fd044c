import type { FastifyRequest } from 'fastify';
import type { Config } from '../../core/infra/config.js';
import { createRateLimiter, type RateRule } from '../../core/infra/rate-limit.js';
import type { Deps } from '../api-deps.js';

// Throttles on the open sign-in endpoints (no session yet, so nothing else stands in the way):
// per client address for every one of them, and per email address for the mails we send, so
// nobody can make the platform mail-bomb an inbox or guess codes at speed. The counts live in
// Redis, shared by every api process. Polling for a device token has a far larger allowance:
// `pitch login` asks every few seconds for up to 15 minutes.

const WINDOW = 15 * 60;

const rules = (c: Pick<Config, 'SIGN_IN_PER_IP' | 'SIGN_IN_PER_EMAIL'>) =>
  ({
    ip: {
      name: 'sign-in:ip',
      limit: c.SIGN_IN_PER_IP,
      windowSeconds: WINDOW,
      text: `at most ${c.SIGN_IN_PER_IP} sign-in requests from one address in 15 minutes`,
    },
    email: {
      name: 'sign-in:email',
      limit: c.SIGN_IN_PER_EMAIL,
      windowSeconds: WINDOW,
      text: `at most ${c.SIGN_IN_PER_EMAIL} sign-in links to one email address in 15 minutes`,
    },
    poll: {
      name: 'sign-in:poll',
      limit: c.SIGN_IN_PER_IP * 20,
      windowSeconds: WINDOW,
      text: 'too many device-token polls from one address; wait and sign in again',
    },
  }) satisfies Record<string, RateRule>;

export type SignInLimit = 'ip' | 'email' | 'poll';

/** Counts a sign-in request against its limits; throws the spec's 429 past one. */
export async function takeSignIn(
  deps: Pick<Deps, 'config' | 'queues'>,
  req: FastifyRequest,
  kinds: { limit: SignInLimit; subject?: string }[],
) {
  const limiter = createRateLimiter(deps.queues.redis, deps.queues.prefix);
  const all = rules(deps.config);
  for (const { limit, subject } of kinds) await limiter.take(all[limit], subject ?? req.ip);
}
