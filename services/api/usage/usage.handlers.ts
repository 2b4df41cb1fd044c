import type { HandlerGroup } from '../routing/handler.js';
import { containerUsage, containerUsageByProject } from '../../data/container-usage.sql.js';

export const usageHandlers = {
  /** Demo container use of the active workspace in the current UTC month, and each project's share. */
  containerUsage: async ({ deps, auth }) => {
    const at = new Date();
    const [usage, projects] = await Promise.all([
      containerUsage(deps.sql, auth.workspaceId, at),
      containerUsageByProject(deps.sql, auth.workspaceId, at),
    ]);
    return { ...usage, projects };
  },
} satisfies HandlerGroup;
