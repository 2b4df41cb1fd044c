import { z } from 'zod';
import { Note } from '../resources/activity.js';
import { BoardCard, LinkOutcome, LinkStage } from '../resources/link.js';
import { route } from '../route.js';
import { LinkParams, ProjectParams } from './params.js';

// Spec 4.2, the pipeline. On Free every endpoint here answers 402 with limit `pipeline`.
export const pipelineRoutes = {
  board: route({
    operation: 'board', method: 'GET', path: '/api/board', status: 200, tag: 'pipeline',
    summary: 'Every link of every non-deleted project, as board cards.',
    reply: z.array(BoardCard),
    errors: [402],
  }),
  projectBoard: route({
    operation: 'projectBoard', method: 'GET', path: '/api/projects/:projectId/board', status: 200, tag: 'pipeline',
    summary: "The project's links as board cards.",
    params: ProjectParams,
    reply: z.array(BoardCard),
    errors: [402, 404],
  }),
  setStage: route({
    operation: 'setStage', method: 'POST', path: '/api/links/:linkId/stage', status: 200, tag: 'pipeline',
    summary: "Places the link at a stage by hand; the evidence's stage stays as `suggested`; null hands it back to the evidence.",
    params: LinkParams,
    body: z.object({ stage: LinkStage.nullable() }),
    reply: BoardCard,
    errors: [402, 404],
  }),
  setOutcome: route({
    operation: 'setOutcome', method: 'POST', path: '/api/links/:linkId/outcome', status: 200, tag: 'pipeline',
    summary: "Sets the link's outcome; null clears it.",
    params: LinkParams,
    body: z.object({ outcome: LinkOutcome.nullable() }),
    reply: BoardCard,
    errors: [402, 404],
  }),
  followUp: route({
    operation: 'followUp', method: 'POST', path: '/api/links/:linkId/follow-up', status: 200, tag: 'pipeline',
    summary: 'Sets a follow-up; both null clears it; nothing is sent to anyone.',
    params: LinkParams,
    body: z.object({ on: z.iso.date().nullable(), note: z.string().trim().min(1).max(2000).nullable() }),
    reply: BoardCard,
    errors: [402, 404],
  }),
  listNotes: route({
    operation: 'listNotes', method: 'GET', path: '/api/links/:linkId/notes', status: 200, tag: 'pipeline',
    summary: "The link's notes, newest first.",
    params: LinkParams,
    reply: z.array(Note),
    errors: [402, 404],
  }),
  addNote: route({
    operation: 'addNote', method: 'POST', path: '/api/links/:linkId/notes', status: 200, tag: 'pipeline',
    summary: 'Adds a note; answers all the notes.',
    params: LinkParams,
    body: z.object({ body: z.string().min(1).max(2000) }),
    reply: z.array(Note),
    errors: [402, 404],
  }),
  removeNote: route({
    operation: 'removeNote', method: 'POST', path: '/api/notes/:noteId/remove', status: 200, tag: 'pipeline',
    summary: 'Removes a note; answers the remaining notes.',
    params: z.object({ noteId: z.string() }),
    reply: z.array(Note),
    errors: [402, 404],
  }),
};
