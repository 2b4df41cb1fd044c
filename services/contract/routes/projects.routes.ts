import { z } from 'zod';
import { CopyExit } from '../resources/copy-exit.js';
import { Project } from '../resources/project.js';
import { route } from '../route.js';
import { nameText } from '../storable-text.js';
import { ProjectParams } from './params.js';

// Spec 4.2: projects.
export const projectRoutes = {
  listProjects: route({
    operation: 'listProjects',
    method: 'GET',
    path: '/api/projects',
    status: 200,
    tag: 'projects',
    summary: 'Projects not deleted, newest first.',
    reply: z.array(Project),
  }),
  createProject: route({
    operation: 'createProject',
    method: 'POST',
    path: '/api/projects',
    status: 201,
    tag: 'projects',
    summary: 'A new project. 409 if the slug is taken or deleted under 30 days ago; 422 for format, reserved, impersonation, banned.',
    // The slug's format is checked by the service so that it answers 422 format, not 400.
    body: z.object({ slug: z.string().min(3).max(40), name: nameText(80) }),
    reply: Project,
    errors: [402, 409, 422],
  }),
  getProject: route({
    operation: 'getProject',
    method: 'GET',
    path: '/api/projects/:projectId',
    status: 200,
    tag: 'projects',
    summary: 'One project.',
    params: ProjectParams,
    reply: Project,
    errors: [404],
  }),
  renameProject: route({
    operation: 'renameProject',
    method: 'POST',
    path: '/api/projects/:projectId/name',
    status: 200,
    tag: 'projects',
    summary: 'Renames the project; its slug and address stay.',
    params: ProjectParams,
    body: z.object({ name: nameText(80) }),
    reply: Project,
    errors: [404],
  }),
  deleteProject: route({
    operation: 'deleteProject',
    method: 'POST',
    path: '/api/projects/:projectId/delete',
    status: 200,
    tag: 'projects',
    summary: 'Deletes the project when `confirm` equals its slug (else 422 confirm); its links stop; the slug is held 30 days.',
    params: ProjectParams,
    body: z.object({ confirm: z.string() }),
    reply: z.object({ deleted: z.literal(true) }),
    errors: [404, 422],
  }),
  listExits: route({
    operation: 'listExits',
    method: 'GET',
    path: '/api/projects/:projectId/exits',
    status: 200,
    tag: 'projects',
    summary:
      "The latest 20 times a copy of the project's container demo exited on its own (a crash, or a start that failed by exiting), newest first, each with its exit code and last output.",
    params: ProjectParams,
    reply: z.array(CopyExit),
    errors: [404],
  }),
};
