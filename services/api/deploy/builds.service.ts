import { randomUUID } from 'node:crypto';
import type { Manifest } from '../../contract/manifest/manifest.schema.js';
import type { Sql } from '../../core/db.js';
import { invalid, refused, unavailable } from '../../core/errors.js';
import { runJob, type BuildJob, type BuildOutcome } from '../../core/jobs.js';
import { planLimit, planOf } from '../../core/plans.js';
import type { Queues } from '../../core/queues.js';
import { assertNotPaused } from '../../data/pauses.js';
import { projectIn } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { buildIn, deploysInLastDay } from '../../data/builds.sql.js';
import { moveUpload, uploadIn } from '../../data/uploads.sql.js';

/** How long createBuild waits for its unpack or bundle check before answering 503. */
const buildWaitMs = 10 * 60 * 1000;

export interface CreateBuildInput {
  uploadId: string;
  manifest: Manifest;
  note?: string;
  rehearsal?: Record<string, unknown>;
}

/**
 * createBuild (spec 4.1 step 3): checks the plan and the upload (the manifest was checked with the
 * body, against the same schema the CLI uses), then hands the bytes to a worker (unpack for
 * static, bundle check for container) and waits for its outcome.
 * The worker writes the build row, so a build exists only once its files are all in place.
 */
export async function createBuild(sql: Sql, queues: Queues, auth: { workspaceId: string; personId: string }, projectId: string, input: CreateBuildInput) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  await assertNotPaused(sql, project);
  const upload = await uploadIn(sql, auth.workspaceId, input.uploadId);
  if (upload.projectId !== project.id) throw refused(422, 'unfinished', 'this upload belongs to another project');
  if (upload.state === 'declared' || upload.state === 'receiving') throw refused(422, 'unfinished', 'the upload\'s bytes never arrived');
  if (upload.state !== 'received') throw refused(422, 'used', 'this upload already made a build');
  if (upload.kind !== input.manifest.kind) throw refused(422, 'kind', `the upload was started as ${upload.kind} and the manifest says ${input.manifest.kind}`);

  const plan = await planNameOf(sql, auth.workspaceId);
  if (input.manifest.kind === 'container' && planOf(plan).staticOnly) throw planLimit('containers', plan);
  if ((await deploysInLastDay(sql, auth.workspaceId)) >= planOf(plan).deploys) throw planLimit('deploys', plan);

  if (!(await moveUpload(sql, upload.id, 'received', 'building'))) throw refused(422, 'used', 'this upload is already making a build');
  const job: BuildJob = {
    buildId: randomUUID(),
    uploadId: upload.id,
    projectId: project.id,
    workspaceId: auth.workspaceId,
    createdBy: auth.personId,
    manifest: input.manifest as Record<string, unknown>,
    note: input.note ?? null,
    rehearsal: input.rehearsal ?? null,
  };
  let outcome: BuildOutcome;
  try {
    outcome = await runJob<BuildOutcome>(queues, upload.kind === 'static' ? 'unpack' : 'bundle', job.buildId, job, buildWaitMs);
  } catch (err) {
    // The job failed for good (or is still running): give the bytes back for another try unless
    // the worker got as far as making the build.
    await moveUpload(sql, upload.id, 'building', 'received');
    const [made] = await sql`select 1 from builds where id = ${job.buildId}`;
    if (!made) throw unavailable(`the build could not be made: ${(err as Error).message}`);
    outcome = { ok: true, buildId: job.buildId };
  }
  if (!outcome.ok) {
    await moveUpload(sql, upload.id, 'building', 'received');
    if (outcome.reason === 'manifest') throw invalid(outcome.issues);
    throw refused(422, 'archive', outcome.detail);
  }
  return { build: await buildIn(sql, project.id, outcome.buildId), liveBuildId: project.liveBuildId };
}

/**
 * makeLive: the project's live build becomes this one, and the release is recorded. Making an
 * earlier build live again is a rollback, recorded the same way.
 */
export async function makeLive(sql: Sql, auth: { workspaceId: string; personId: string }, projectId: string, buildId: string) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  const build = await buildIn(sql, project.id, buildId);
  await assertNotPaused(sql, project);
  const plan = await planNameOf(sql, auth.workspaceId);
  if (build.kind === 'container' && planOf(plan).staticOnly) throw planLimit('containers', plan);
  const current = project.liveBuildId ? await buildIn(sql, project.id, project.liveBuildId) : null;
  const [releasedBefore] = await sql`select 1 from releases where build_id = ${build.id} limit 1`;
  const rollback = Boolean(releasedBefore) || (current !== null && build.createdAt < current.createdAt);
  await sql.begin(async (tx) => {
    await tx`update projects set live_build_id = ${build.id} where id = ${project.id}`;
    await tx`
      insert into releases (workspace_id, project_id, build_id, released_by, rollback)
      values (${auth.workspaceId}, ${project.id}, ${build.id}, ${auth.personId}, ${rollback})`;
  });
  return build;
}
