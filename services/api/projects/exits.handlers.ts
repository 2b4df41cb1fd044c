import type { HandlerGroup } from '../routing/handler.js';
import { exitsOfProject } from '../../data/copy-exits.sql.js';
import { projectIn } from '../../data/projects.sql.js';

export const exitHandlers = {
  /** Recent exits of the project's copies; a project of another workspace is a 404 like a missing one. */
  listExits: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const exits = await exitsOfProject(deps.sql, auth.workspaceId, project.id);
    return exits.map((e) => ({
      copyId: e.copyId,
      buildId: e.buildId,
      when: e.healthy ? 'crash' : 'start',
      exitCode: e.exitCode,
      oom: e.oom,
      output: e.output,
      at: e.at.toISOString(),
    }));
  },
} satisfies HandlerGroup;
