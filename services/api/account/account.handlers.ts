import type { Handlers } from '../routing/handler.js';
import { imageBody } from '../routing/image-body.js';
import { accountOf } from './account.service.js';
import { photoLimits, removePhoto, savePhoto } from './photo.service.js';
import { revokeSession, sessionsOf, signOutEverywhere } from './sessions.service.js';
import { clearSessionCookie } from '../routing/request-auth.js';

export const accountHandlers: Handlers = {
  whoami: ({ deps, auth }) => accountOf(deps.sql, deps.config, auth),
  uploadPhoto: async ({ deps, auth, req }) => {
    await savePhoto(deps.sql, deps.storage, auth.personId, await imageBody(req, photoLimits.maxBytes, 'the photo'));
    return accountOf(deps.sql, deps.config, auth);
  },
  removePhoto: async ({ deps, auth }) => {
    await removePhoto(deps.sql, deps.storage, auth.personId);
    return accountOf(deps.sql, deps.config, auth);
  },

  sessions: ({ deps, auth }) => sessionsOf(deps.sql, auth),
  revokeSession: ({ deps, auth, params }) => revokeSession(deps.sql, auth, params.sessionId),
  signOutEverywhere: async ({ deps, auth, reply }) => {
    const out = await signOutEverywhere(deps.sql, auth);
    if (auth.via === 'cookie') clearSessionCookie(reply);
    return out;
  },
};
