import type { Config } from '../../core/infra/config.js';
import type { Queues } from '../../core/infra/queues.js';
import { createRateLimiter } from '../../core/infra/rate-limit.js';
import { workSlots } from '../../core/rules/work-slots.js';

// suggestWording's bounds (security review 3, L1). Each call is a paid model request that can
// hold its connection for up to 20 s, so:
// - a workspace may ask for `suggestionsADay` drafts in a day, counted in Redis so every api
//   process shares the count (as product feedback is); past it, the same 429 product feedback
//   answers (`reason: rate`, `retryAfter` and the Retry-After header);
// - one api process waits on at most `suggestionsAtOnce` drafts; another call meanwhile is 503
//   with Retry-After at once, not queued, so a burst can hold neither sockets nor memory.
// A call refused either way never reaches the model; one refused for want of a model
// (AI_BASE_URL unset) is not counted.

export const suggestionsADay = 20;
export const suggestionsAtOnce = 4;
const drafting = workSlots({ running: suggestionsAtOnce, waiting: 0, retryAfter: 5, what: 'wordings being drafted' });

export async function boundedSuggestion<T>(
  deps: { config: Pick<Config, 'AI_BASE_URL' | 'AI_API_KEY'>; queues: Queues },
  workspaceId: string,
  draft: () => Promise<T>,
): Promise<T> {
  if (!deps.config.AI_BASE_URL || !deps.config.AI_API_KEY) return draft(); // answers its own 503
  return drafting.run(async () => {
    const limiter = createRateLimiter(deps.queues.redis, deps.queues.prefix);
    await limiter.take(
      {
        name: 'suggest-wording',
        limit: suggestionsADay,
        windowSeconds: 24 * 3600,
        text: `at most ${suggestionsADay} suggested wordings a day`,
      },
      workspaceId,
    );
    return draft();
  });
}
