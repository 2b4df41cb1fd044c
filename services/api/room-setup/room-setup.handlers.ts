import type { Handlers } from '../routing/handler.js';
import { projectIn } from '../../data/projects.sql.js';
import { getAccess, setAccess } from './access.service.js';
import { tourOf } from './tour.service.js';
import { historyOf } from '../../data/room-history.sql.js';
import { roomPauseOf } from '../../data/pauses.js';
import { pauseRoom, resumeRoom } from './room-pause.service.js';
import { createPreviewPass } from '../../data/preview-passes.sql.js';
import { addPage, getRoomSetup, orderApps, orderPages, removePage } from './setup.service.js';

export const roomHandlers: Handlers = {
  getRoomPause: async ({ deps, auth, params }) => roomPauseOf(deps.sql, await projectIn(deps.sql, auth.workspaceId, params.projectId)),
  pauseRoom: ({ deps, auth, params, body }) => pauseRoom(deps.sql, auth, params.projectId, body.message),
  resumeRoom: ({ deps, auth, params }) => resumeRoom(deps.sql, auth, params.projectId),

  getTour: async ({ deps, auth, params }) => tourOf(deps.sql, await projectIn(deps.sql, auth.workspaceId, params.projectId)),
  projectHistory: async ({ deps, auth, params }) => historyOf(deps.sql, (await projectIn(deps.sql, auth.workspaceId, params.projectId)).id),

  getAccess: ({ deps, auth, params }) => getAccess(deps.sql, auth, params.projectId),
  setAccess: ({ deps, auth, params, body }) => setAccess(deps.sql, auth, params.projectId, body.requireEmail),
  previewPass: async ({ deps, auth, params, reply }) => {
    reply.header('cache-control', 'no-store');
    return createPreviewPass(deps.sql, deps.config, auth, params.projectId);
  },

  getRoomSetup: ({ deps, auth, params }) => getRoomSetup(deps.sql, auth, params.projectId),
  orderApps: ({ deps, auth, params, body }) => orderApps(deps.sql, auth, params.projectId, body.ids),
  orderPages: ({ deps, auth, params, body }) => orderPages(deps.sql, auth, params.projectId, body.ids),
  addPage: ({ deps, auth, params, body }) => addPage(deps.sql, auth, params.projectId, body),
  removePage: ({ deps, auth, params }) => removePage(deps.sql, auth, params.projectId, params.pageId),
};
