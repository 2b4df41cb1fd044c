import { z } from 'zod';
import { Id, Uri } from '../common.js';
import { HistoryEntry, NextSteps, NextStepsInput, PageKind, ROOM_PAGES_CHARS_MAX, ROOM_PAGES_MAX, RoomPause, RoomSetup, Tour } from '../resources/room-setup.js';
import { route } from '../route.js';
import { ProjectParams } from './params.js';

// Spec 4.2: the builder's room setup (pages, app order, tour, history, pause, access, preview, next
// steps), tagged room-setup: `services/room` is the room viewers meet, this is how a builder sets it.

const Access = z.object({ requireEmail: z.boolean(), privateLinks: z.boolean() });

export const roomSetupRoutes = {
  addPage: route({
    operation: 'addPage', method: 'POST', path: '/api/projects/:projectId/pages', status: 200, tag: 'room-setup',
    summary: 'Adds a page to the room; a page with an existing title has its content replaced. '
      + `A room holds at most ${ROOM_PAGES_MAX} pages of ${ROOM_PAGES_CHARS_MAX} characters together, else 422 size.`,
    params: ProjectParams,
    body: z.object({
      title: z.string().min(1).max(80),
      kind: PageKind,
      content: z.string().max(2_000_000),
    }),
    reply: z.object({ id: Id, title: z.string(), kind: PageKind }),
    errors: [404, 422, 503],
  }),
  getRoomSetup: route({
    operation: 'getRoomSetup', method: 'GET', path: '/api/projects/:projectId/room', status: 200, tag: 'room-setup',
    summary: "The room's app order and pages.",
    params: ProjectParams,
    reply: RoomSetup,
    errors: [404],
  }),
  orderApps: route({
    operation: 'orderApps', method: 'POST', path: '/api/projects/:projectId/room/apps', status: 200, tag: 'room-setup',
    summary: 'Named apps first in the order given, then the rest in manifest order; unknown ids are ignored.',
    params: ProjectParams,
    body: z.object({ ids: z.array(z.string()).max(100) }),
    reply: RoomSetup,
    errors: [404],
  }),
  orderPages: route({
    operation: 'orderPages', method: 'POST', path: '/api/projects/:projectId/room/pages', status: 200, tag: 'room-setup',
    summary: 'Orders the pages; must name every page once, else 422 order.',
    params: ProjectParams,
    body: z.object({ ids: z.array(z.string()).max(100) }),
    reply: RoomSetup,
    errors: [404, 422],
  }),
  removePage: route({
    operation: 'removePage', method: 'POST', path: '/api/projects/:projectId/pages/:pageId/remove', status: 200, tag: 'room-setup',
    summary: 'Removes a page; later pages close ranks; the next deploy uploads it again if the manifest lists it.',
    params: z.object({ projectId: z.string(), pageId: z.string() }),
    reply: RoomSetup,
    errors: [404],
  }),
  getTour: route({
    operation: 'getTour', method: 'GET', path: '/api/projects/:projectId/tour', status: 200, tag: 'room-setup',
    summary: "The live build's story steps with their rehearsal results.",
    params: ProjectParams,
    reply: Tour,
    errors: [404],
  }),
  projectHistory: route({
    operation: 'projectHistory', method: 'GET', path: '/api/projects/:projectId/history', status: 200, tag: 'room-setup',
    summary: "The project's append-only history, newest first.",
    params: ProjectParams,
    reply: z.array(HistoryEntry),
    errors: [404],
  }),
  getRoomPause: route({
    operation: 'getRoomPause', method: 'GET', path: '/api/projects/:projectId/pause', status: 200, tag: 'room-setup',
    summary: "The owner's pause, any platform pause, and what a viewer meets.",
    params: ProjectParams,
    reply: RoomPause,
    errors: [404],
  }),
  pauseRoom: route({
    operation: 'pauseRoom', method: 'POST', path: '/api/projects/:projectId/pause', status: 200, tag: 'room-setup',
    summary: 'Pauses the room with a note (room.pause); on a paused room only the note changes (room.message). Deploys and new links still work.',
    params: ProjectParams,
    body: z.object({ message: z.string().max(280).nullable() }),
    reply: RoomPause,
    errors: [404],
  }),
  resumeRoom: route({
    operation: 'resumeRoom', method: 'POST', path: '/api/projects/:projectId/resume', status: 200, tag: 'room-setup',
    summary: "Lifts the owner's pause (room.resume); a platform pause stays; 409 taken when not paused.",
    params: ProjectParams,
    reply: RoomPause,
    errors: [404, 409],
  }),
  getAccess: route({
    operation: 'getAccess', method: 'GET', path: '/api/projects/:projectId/access', status: 200, tag: 'room-setup',
    summary: 'Whether the room asks viewers for an email, and whether the plan allows private links.',
    params: ProjectParams,
    reply: Access,
    errors: [404],
  }),
  setAccess: route({
    operation: 'setAccess', method: 'POST', path: '/api/projects/:projectId/access', status: 200, tag: 'room-setup',
    summary: 'Sets whether the room asks viewers for an email; the email is not verified and nothing is sent.',
    params: ProjectParams,
    body: z.object({ requireEmail: z.boolean() }),
    reply: Access,
    errors: [404],
  }),
  previewPass: route({
    operation: 'previewPass', method: 'POST', path: '/api/projects/:projectId/preview', status: 200, tag: 'room-setup',
    summary: 'A one-time address (120 seconds, spent on arrival) that opens the room as a viewer sees it, marked preview, recording nothing.',
    params: ProjectParams,
    reply: z.object({ url: Uri }),
    errors: [404],
  }),
  getNextSteps: route({
    operation: 'getNextSteps', method: 'GET', path: '/api/projects/:projectId/next-steps', status: 200, tag: 'room-setup',
    summary: 'The What happens next steps the room offers.',
    params: ProjectParams,
    reply: NextSteps,
    errors: [404],
  }),
  setNextSteps: route({
    operation: 'setNextSteps', method: 'POST', path: '/api/projects/:projectId/next-steps', status: 200, tag: 'room-setup',
    summary: "Sets the steps; one left out is deleted, its words kept in `removed`; on a plan that cannot choose, kept but the room offers only a question.",
    params: ProjectParams,
    body: NextStepsInput,
    reply: NextSteps,
    errors: [404],
  }),
};
