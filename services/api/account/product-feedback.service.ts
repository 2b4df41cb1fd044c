import { createRateLimiter } from '../../core/infra/rate-limit.js';
import { fileProductFeedback } from '../../data/product-feedback.sql.js';
import { planFor } from '../../data/workspaces.sql.js';
import type { Deps } from '../api-deps.js';
import type { Auth } from '../routing/request-auth.js';

// Feedback on the product (spec 4.6 sendProductFeedback): filed under the caller and the active
// workspace whatever the body says, at most the plan's `feedbackPerHour` notes a person an hour.
// The count lives in Redis (core/infra/rate-limit.ts), so every api process shares it.

export async function sendProductFeedback(
  deps: Pick<Deps, 'sql' | 'queues'>,
  auth: Auth,
  body: { body: string; page?: string; appVersion?: string },
) {
  const perHour = (await planFor(deps.sql, auth.workspaceId)).feedbackPerHour;
  const limiter = createRateLimiter(deps.queues.redis, deps.queues.prefix);
  await limiter.take(
    { name: 'product-feedback', limit: perHour, windowSeconds: 3600, text: `at most ${perHour} feedback notes an hour` },
    auth.personId,
  );
  const filed = await fileProductFeedback(deps.sql, { personId: auth.personId, workspaceId: auth.workspaceId, ...body });
  return { id: filed.id, createdAt: filed.createdAt.toISOString() };
}
