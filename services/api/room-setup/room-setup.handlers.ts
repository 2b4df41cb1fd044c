import type { HandlerGroup } from '../routing/handler.js';
import { projectIn } from '../../data/projects.sql.js';
import { getAccess, setAccess } from './access.service.js';
import { tourOf } from './tour.service.js';
import { historyOf } from '../../data/room-history.sql.js';
import { roomPauseOf } from '../../data/pauses.js';
import { pauseRoom, resumeRoom } from './room-pause.service.js';
import { createPreviewPass } from '../../data/preview-passes.sql.js';
import { blockListedIfFailed, checkRoomPageOffLoop, isListed } from '../community/cards.service.js';
import { addPage, getRoomSetup, orderApps, orderPages, removePage } from './setup.service.js';

export const roomSetupHandlers = {
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
  addPage: async ({ deps, auth, params, body }) => {
    // A listed project's page shows in its public room: checked before it is saved (in the page
    // checks' worker thread; 503 when busy), and a failure takes the listing off (issue 28, M5).
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const checked = (await isListed(deps.sql, project.id)) ? await checkRoomPageOffLoop(body, project.workspaceId) : null;
    const page = await addPage(deps.sql, auth, params.projectId, body);
    if (checked) await blockListedIfFailed(deps.sql, deps.config, [project.id], checked);
    return page;
  },
  removePage: ({ deps, auth, params }) => removePage(deps.sql, auth, params.projectId, params.pageId),
} satisfies HandlerGroup;
