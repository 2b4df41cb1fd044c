import type { HandlerGroup } from '../routing/handler.js';
import { containerUsage, containerUsageByProject } from '../../data/container-usage.sql.js';
import { usageStatement } from '../../data/statement-figures.js';
import { statementCsv } from './statement-csv.js';
import { statementMonth } from './statements.service.js';

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

  /** The active workspace's statement of a month (issue 46); another workspace's is never reachable. */
  usageStatement: async ({ deps, auth, params }) =>
    usageStatement(deps.sql, auth.workspaceId, statementMonth(params.month), deps.config.RUNNER_COPY_HOUR_USD),

  /** The same statement as a CSV download, every line. */
  usageStatementCsv: async ({ deps, auth, params, reply }) => {
    const month = statementMonth(params.month);
    const body = await statementCsv(deps.sql, auth.workspaceId, month);
    return reply
      .status(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="usage-${params.month}.csv"`)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  },
} satisfies HandlerGroup;
