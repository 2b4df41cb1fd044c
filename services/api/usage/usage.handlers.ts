import type { Handlers } from '../routing/handler.js';
import { containerUsage } from '../../data/container-usage.sql.js';

export const usageHandlers: Handlers = {
  /** Demo container use of the active workspace in the current UTC month. */
  containerUsage: ({ deps, auth }) => containerUsage(deps.sql, auth.workspaceId),
};
