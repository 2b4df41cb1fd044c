import type { Handlers } from '../routing/handler.js';
import { accountOf } from './account.service.js';

export const accountHandlers: Handlers = {
  whoami: ({ deps, auth }) => accountOf(deps.sql, auth),
};
