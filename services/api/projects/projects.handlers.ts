import type { HandlerGroup } from '../routing/handler.js';
import { projectView } from './project-view.js';
import { createProject, deleteProject, renameProject } from './projects.service.js';
import { projectIn, projectsIn } from '../../data/projects.sql.js';
import { blockListedIfFailed } from '../community/cards.service.js';
import { checkWords } from '../community/listing-checks.js';

export const projectHandlers = {
  listProjects: async ({ deps, auth }) => (await projectsIn(deps.sql, auth.workspaceId)).map((p) => projectView(deps.config, p)),
  createProject: async ({ deps, auth, body }) => projectView(deps.config, await createProject(deps.sql, auth.workspaceId, body)),
  getProject: async ({ deps, auth, params }) => projectView(deps.config, await projectIn(deps.sql, auth.workspaceId, params.projectId)),
  renameProject: async ({ deps, auth, params, body }) => {
    // The name shows in a listed project's public room: a name that fails the listing checks takes it off (issue 28, M5).
    const checked = checkWords('name', body.name);
    const project = await renameProject(deps.sql, auth.workspaceId, params.projectId, body.name);
    await blockListedIfFailed(deps.sql, deps.config, [project.id], checked);
    return projectView(deps.config, project);
  },
  deleteProject: ({ deps, auth, params, body }) => deleteProject(deps.sql, auth.workspaceId, params.projectId, body.confirm),
} satisfies HandlerGroup;
