import type { HandlerGroup } from '../routing/handler.js';
import { listedProjectsOf } from '../../data/listing-subjects.sql.js';
import { blockListedIfFailed } from './cards.service.js';
import { checkWords } from './listing-checks.js';
import { getProfile, publicProfile, setProfile } from './profiles.service.js';

export const profileHandlers = {
  getProfile: ({ deps, auth }) => getProfile(deps.sql, auth.personId),
  setProfile: async ({ deps, auth, body }) => {
    const saved = await setProfile(deps.sql, auth.personId, body);
    // The bio goes with each listing that credits this person: one that fails the checks takes them off (issue 28, M5).
    if (saved.bio)
      await blockListedIfFailed(
        deps.sql,
        deps.config,
        await listedProjectsOf(deps.sql, { creditPersonId: auth.personId }),
        checkWords('bio', saved.bio),
      );
    return saved;
  },
  /** Open: no sign-in. */
  communityProfile: ({ deps, params }) => publicProfile(deps.sql, deps.config, params.handle),
} satisfies HandlerGroup;
