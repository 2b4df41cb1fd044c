import type { Sql } from '../../core/infra/db.js';
import type { HandlerGroup } from '../routing/handler.js';
import { displayNameOf } from '../../data/people.sql.js';
import { projectIn } from '../../data/projects.sql.js';
import { buildView } from './build-view.js';
import { buildsOf } from '../../data/builds.sql.js';
import { createBuild, makeLive } from './builds.service.js';
import { receiveUpload, startUpload } from './uploads.service.js';
import { completeDirect } from './direct-uploads.service.js';
import { deployersOf, releasesOf } from '../../data/releases.sql.js';

export const deployHandlers = {
  startUpload: ({ deps, auth, params, body }) => startUpload(deps.sql, deps.storage, auth, params.projectId, body),

  completeUpload: ({ deps, auth, params, body }) => completeDirect(deps.sql, deps.storage, auth.workspaceId, params.uploadId, body.parts),

  uploadPut: async ({ deps, auth, params, req }) => {
    await receiveUpload(deps.sql, deps.storage, auth.workspaceId, params.uploadId, req.headers['content-length'], req.raw);
    return undefined;
  },

  createBuild: async ({ deps, auth, params, body }) => {
    const { build, liveBuildId } = await createBuild(deps, auth, params.projectId, body);
    return buildView(build, liveBuildId);
  },

  listBuilds: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return (await buildsOf(deps.sql, project.id)).map((b) => buildView(b, project.liveBuildId));
  },

  buildHistory: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const builds = await buildsOf(deps.sql, project.id);
    const people = await peopleById(deps.sql, project.id);
    const releases = await releasesOf(deps.sql, project.id);
    return builds.map((b) => ({
      ...buildView(b, project.liveBuildId),
      deployedBy: b.createdBy ? (people.get(b.createdBy) ?? null) : null,
      releases: releases
        .filter((r) => r.buildId === b.id)
        .map((r) => ({
          at: r.releasedAt.toISOString(),
          by: r.releasedBy ? (people.get(r.releasedBy) ?? null) : null,
          rollback: r.rollback,
        })),
    }));
  },

  makeLive: async ({ deps, auth, params }) => {
    const build = await makeLive(deps.sql, auth, params.projectId, params.buildId);
    // A container build's image is loaded and its warm copies started before the first viewer
    // waits on them. Best effort: the runner also finds live builds on its own timer.
    if (build.kind === 'container') deps.runner.prepare(build.id).catch(() => {});
    return buildView(build, build.id);
  },
} satisfies HandlerGroup;

/** Everyone who deployed or released in this project, as `{userId, displayName}`. */
async function peopleById(sql: Sql, projectId: string) {
  const rows = await deployersOf(sql, projectId);
  return new Map(rows.map((p) => [p.id, { userId: p.id, displayName: displayNameOf(p) }]));
}
