import { randomUUID } from 'node:crypto';
import type { Manifest } from '@demo-rooms/contract/manifest';
import type { Rehearsal } from '@demo-rooms/contract';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { invalid, Refusal, refused, unavailable } from '../../core/rules/errors.js';
import { BuildOutcome, runJob, type BuildJob } from '../../core/infra/jobs.js';
import type { Logger } from '../../core/infra/log.js';
import { planLimit } from '../../core/rules/plans.js';
import type { Queues } from '../../core/infra/queues.js';
import type { Storage } from '../../core/infra/storage.js';
import { assertNotPaused } from '../../data/pauses.js';
import { projectIn } from '../../data/projects.sql.js';
import { planFor } from '../../data/workspaces.sql.js';
import { buildIn, releaseDeploy, reserveDeploy } from '../../data/builds.sql.js';
import { releaseBuild } from '../../data/releases.sql.js';
import { uploadIn, uploadKey } from '../../data/uploads.sql.js';

export interface CreateBuildInput {
  uploadId?: string;
  /** A pushed image (issue 32): its manifest in the project's repository, and that manifest's text as the deploy sent it. */
  image?: { digest: string; manifest?: string };
  manifest: Manifest;
  note?: string | null;
  rehearsal?: Rehearsal;
}

/** A rehearsal may speak only of the manifest's own story steps, each once (400 otherwise). */
function checkRehearsal(manifest: Manifest, rehearsal: Rehearsal | undefined) {
  if (!rehearsal) return;
  const story = new Set((manifest.story ?? []).map((s) => s.id));
  const seen = new Set<string>();
  const issues = rehearsal.steps.flatMap((step, i) => {
    const path = `rehearsal.steps[${i}].id`;
    if (!story.has(step.id)) return [{ path, message: `no story step "${step.id}" in the manifest` }];
    if (seen.has(step.id)) return [{ path, message: `the step "${step.id}" is listed twice` }];
    seen.add(step.id);
    return [];
  });
  if (issues.length) throw invalid(issues);
}

export interface BuildDeps {
  sql: Sql;
  queues: Queues;
  storage: Storage;
  config: Pick<Config, 'BUILD_WAIT_MS' | 'REGISTRY_URL'>;
  log: Logger;
}

/**
 * createBuild (spec 4.1 step 3): checks the plan and the upload (the manifest was checked with the
 * body, against the same schema the CLI uses), then hands the bytes to a worker (unpack for
 * static, bundle check for container) and waits for its outcome.
 * The worker writes the build row, so a build exists only once its files are all in place.
 *
 * The deploy is reserved, and the upload claimed, under the workspace's lock before the job is
 * enqueued (reserveDeploy). Whatever the job's fate, the reservation ends one of two ways: the
 * worker marks it made with the build row, or this request releases it (refusal, failure, or the
 * wait running out), and from then on the job can no longer make its build (docs/decisions/projects-and-deploys.md).
 * A reservation given up is kept: it counts as a failed attempt, and the plan's deploys bound
 * those too. An upload the archive check refused is `refused` for good, its bytes deleted, and
 * every later createBuild of it answers the same 422 without unpacking anything.
 */
export async function createBuild(
  deps: BuildDeps,
  auth: { workspaceId: string; personId: string },
  projectId: string,
  input: CreateBuildInput,
) {
  const { sql } = deps;
  const project = await projectIn(sql, auth.workspaceId, projectId);
  checkRehearsal(input.manifest, input.rehearsal);
  await assertNotPaused(sql, project);
  const upload = input.uploadId ? await receivedUpload(sql, auth.workspaceId, project.id, input.uploadId, input.manifest) : null;
  if (input.image) {
    if (input.manifest.kind !== 'container')
      throw refused(422, 'kind', 'a pushed image makes a container build, and the manifest says static');
    if (!deps.config.REGISTRY_URL) throw refused(422, 'archive', 'this platform has no image registry: send the image as a bundle upload');
  }

  const plan = await planFor(sql, auth.workspaceId);
  if (input.manifest.kind === 'container' && plan.staticOnly) throw planLimit('containers', plan.name);

  const buildId = randomUUID();
  const reserved = await reserveDeploy(sql, {
    workspaceId: auth.workspaceId,
    uploadId: upload?.id ?? null,
    buildId,
    maxDeploys: plan.deploys,
  });
  if (!reserved.ok) {
    if (reserved.why === 'deploys') throw planLimit('deploys', plan.name);
    if (reserved.why === 'failures') {
      // The 402 `deploys` (the only plan refusal createBuild has), in words that say why.
      throw new Refusal(402, 'Your plan allows no more failed deploys in 24 hours.', 'limit', planLimit('deploys', plan.name).extra);
    }
    throw refused(422, 'used', 'this upload is already making a build');
  }
  const job: BuildJob = {
    buildId,
    uploadId: upload?.id ?? null,
    imageManifest: input.image?.digest ?? null,
    imageManifestText: input.image?.manifest ?? null,
    projectId: project.id,
    workspaceId: auth.workspaceId,
    createdBy: auth.personId,
    manifest: input.manifest as Record<string, unknown>,
    note: input.note ?? null,
    rehearsal: input.rehearsal ?? null,
  };
  let outcome: BuildOutcome;
  try {
    outcome = await runJob(
      deps.queues,
      input.manifest.kind === 'static' ? 'archive.unpack' : 'bundle.check',
      job.buildId,
      job,
      deps.config.BUILD_WAIT_MS,
      BuildOutcome,
    );
  } catch (err) {
    // The job failed for good, or is still running when the wait ran out. Give the deploy up,
    // unless the worker made the build first: then it stands, and is the answer.
    const { made } = await releaseDeploy(sql, job.buildId);
    if (!made) {
      // The reason is ours to read, not the caller's: it can carry a worker's exception text.
      deps.log.error({ err, buildId: job.buildId, uploadId: job.uploadId }, 'createBuild gave the deploy up');
      throw unavailable();
    }
    outcome = { ok: true, buildId: job.buildId };
  }
  if (!outcome.ok) {
    // A manifest at fault leaves the bytes good for a corrected manifest; refused bytes stay refused.
    const { refusedUploadId } = await releaseDeploy(sql, job.buildId, outcome.reason === 'archive' ? outcome.detail : null);
    if (refusedUploadId)
      await deps.storage
        .deletePrefix(uploadKey(refusedUploadId))
        .catch((err) => deps.log.warn({ err, uploadId: refusedUploadId }, 'refused upload bytes not deleted; the sweep retries'));
    if (outcome.reason === 'manifest') throw invalid(outcome.issues);
    throw refused(422, 'archive', outcome.detail);
  }
  return { build: await buildIn(sql, project.id, outcome.buildId), liveBuildId: project.liveBuildId };
}

/** The upload a build is made from: this project's, received, not used, of the manifest's kind. */
async function receivedUpload(sql: Sql, workspaceId: string, projectId: string, uploadId: string, manifest: Manifest) {
  const upload = await uploadIn(sql, workspaceId, uploadId);
  if (upload.projectId !== projectId) throw refused(422, 'unfinished', 'this upload belongs to another project');
  if (upload.state === 'declared' || upload.state === 'receiving') throw refused(422, 'unfinished', "the upload's bytes never arrived");
  if (upload.state === 'refused') throw refused(422, 'archive', upload.refusal ?? 'this upload was refused');
  if (upload.state !== 'received') throw refused(422, 'used', 'this upload already made a build');
  if (upload.kind !== manifest.kind)
    throw refused(422, 'kind', `the upload was started as ${upload.kind} and the manifest says ${manifest.kind}`);
  return upload;
}

/**
 * makeLive: the project's live build becomes this one, and the release is recorded. It is a
 * rollback only when the build is older than the one live now: making a newer build live (again,
 * after rolling back from it) is a plain release, whatever was released before. The build live
 * now answers as it is, with no release recorded (a double click, a retried request).
 */
export async function makeLive(sql: Sql, auth: { workspaceId: string; personId: string }, projectId: string, buildId: string) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  const build = await buildIn(sql, project.id, buildId);
  await assertNotPaused(sql, project);
  const plan = await planFor(sql, auth.workspaceId);
  if (build.kind === 'container' && plan.staticOnly) throw planLimit('containers', plan.name);
  // Its image is gone from the registry (docs/decisions/registry-garbage.md): live, it
  // would fail at every viewer's pull, so it is refused here, where the builder can deploy again.
  if (build.manifestDeletedAt)
    throw refused(
      422,
      'collected',
      "this build's image was removed from the registry (a superseded build, unused for a day): deploy it again",
    );
  // The live build made live again is no release: nothing changes and nothing is recorded.
  if (project.liveBuildId === build.id) return build;
  const current = project.liveBuildId ? await buildIn(sql, project.id, project.liveBuildId) : null;
  const rollback = current !== null && build.createdAt < current.createdAt;
  await releaseBuild(sql, { workspaceId: auth.workspaceId, projectId: project.id, buildId: build.id, releasedBy: auth.personId, rollback });
  return build;
}
