import type { HandlerGroup } from '../routing/handler.js';
import { arrangeProjects, createGroup, deleteGroup, getArrangement, renameGroup } from './arrangement.service.js';

export const arrangementHandlers = {
  getArrangement: ({ deps, auth }) => getArrangement(deps.sql, auth.workspaceId),
  arrangeProjects: ({ deps, auth, body }) => arrangeProjects(deps.sql, auth.workspaceId, body),
  createGroup: ({ deps, auth, body }) => createGroup(deps.sql, auth.workspaceId, body.name),
  renameGroup: ({ deps, auth, params, body }) => renameGroup(deps.sql, auth.workspaceId, params.groupId, body.name),
  deleteGroup: ({ deps, auth, params }) => deleteGroup(deps.sql, auth.workspaceId, params.groupId),
} satisfies HandlerGroup;
