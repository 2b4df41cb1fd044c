import type { Handlers } from '../routing/handler.js';
import { getProfile, publicProfile, setProfile } from './profiles.service.js';

export const profileHandlers: Handlers = {
  getProfile: ({ deps, auth }) => getProfile(deps.sql, auth.personId),
  setProfile: ({ deps, auth, body }) => setProfile(deps.sql, auth.personId, body),
  /** Open: no sign-in. */
  communityProfile: ({ deps, params }) => publicProfile(deps.sql, deps.config, params.handle),
};
