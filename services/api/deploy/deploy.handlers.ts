import type { Sql } from '../../core/db.js';
import type { HandlerGroup } from '../routing/handler.js';
import { displayNameOf } from '../../data/people.sql.js';
import { projectIn } from '../../data/projects.sql.js';
import { buildView } from './build-view.js';
import { buildsOf } from '../../data/builds.sql.js';
import { createBuild, makeLive } from './builds.service.js';
import { receiveUpload, startUpload } from './uploads.service.js';
import { createRunnerClient } from '../../contract/runner/runner-client.js';
import { runnerBaseUrl } from '../../core/config.js';

export const deployHandlers = {
  startUpload: ({ deps, auth, params, body }) => startUpload(deps.sql, auth, params.projectId, body),

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
    const releases = await deps.sql<{ buildId: string; releasedBy: string | null; releasedAt: Date; rollback: boolean }[]>`
      select build_id, released_by, released_at, rollback from releases where project_id = ${project.id} order by released_at desc`;
    return builds.map((b) => ({
      ...buildView(b, project.liveBuildId),
      deployedBy: b.createdBy ? people.get(b.createdBy) ?? null : null,
      releases: releases
        .filter((r) => r.buildId === b.id)
        .map((r) => ({ at: r.releasedAt.toISOString(), by: r.releasedBy ? people.get(r.releasedBy) ?? null : null, rollback: r.rollback })),
    }));
  },

  makeLive: async ({ deps, auth, params }) => {
    const build = await makeLive(deps.sql, auth, params.projectId, params.buildId);
    // A container build's image is loaded and its warm copies started before the first viewer
    // waits on them. Best effort: the runner also finds live builds on its own timer.
    if (build.kind === 'container') createRunnerClient({ baseUrl: runnerBaseUrl(deps.config), appSecret: deps.config.APP_SECRET }).prepare(build.id).catch(() => {});
    return buildView(build, build.id);
  },
} satisfies HandlerGroup;

/** Everyone who deployed or released in this project, as `{userId, displayName}`. */
async function peopleById(sql: Sql, projectId: string) {
  const rows = await sql<{ id: string; name: string; email: string }[]>`
    select distinct p.id, p.name, p.email from people p
    where p.id in (select created_by from builds where project_id = ${projectId}
                   union select released_by from releases where project_id = ${projectId})`;
  return new Map(rows.map((p) => [p.id, { userId: p.id, displayName: displayNameOf(p) }]));
}
