import type { Handlers } from '../http/handler.js';
import { containerUsage } from './container-usage.sql.js';

export const usageHandlers: Handlers = {
  /** Demo container use of the active workspace in the current UTC month. */
  containerUsage: ({ deps, auth }) => containerUsage(deps.sql, auth.workspaceId),
};
