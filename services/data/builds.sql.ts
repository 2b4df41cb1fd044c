import type { Manifest } from '@demo-rooms/contract/manifest';
import type { Db, Sql } from '../core/infra/db.js';
import type { BuildJob } from '../core/infra/jobs.js';
import { notFound } from '../core/rules/errors.js';
import { isUuid } from '../core/infra/ids.js';

export interface BuildRow {
  id: string;
  workspaceId: string;
  projectId: string;
  /** Null for a container build whose image was pushed to the registry (imageManifest). */
  uploadId: string | null;
  kind: 'static' | 'container';
  manifest: Record<string, unknown>;
  sizeBytes: string;
  note: string | null;
  rehearsal: Record<string, unknown> | null;
  fileCount: number | null;
  image: Record<string, unknown> | null;
  /** A static build's content digest (services/contract/static-digest.ts); null for containers and older builds. */
  digest: string | null;
  /** When the registry's copy of a pushed image was deleted (the sweep: superseded, or its project purged). */
  manifestDeletedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
}

/** The kind of the project's live build; null without one. */
export async function liveBuildKind(sql: Db, project: { liveBuildId: string | null }): Promise<'static' | 'container' | null> {
  if (!project.liveBuildId) return null;
  const [build] = await sql<{ kind: 'static' | 'container' }[]>`select kind from builds where id = ${project.liveBuildId}`;
  return build?.kind ?? null;
}

/** Static files of a build live under this prefix; nothing is served before the build row exists. */
export const buildFilesPrefix = (buildId: string) => `builds/${buildId}/files/`;

export async function buildIn(sql: Sql, projectId: string, buildId: string): Promise<BuildRow> {
  if (!isUuid(buildId)) throw notFound();
  const [row] = await sql<BuildRow[]>`select * from builds where id = ${buildId} and project_id = ${projectId}`;
  if (!row) throw notFound();
  return row;
}

export function buildsOf(sql: Sql, projectId: string) {
  return sql<BuildRow[]>`select * from builds where project_id = ${projectId} order by created_at desc, id`;
}

/**
 * Deploys of the workspace in the last 24 hours: its reservations not given up (builds made or
 * still being made), and builds that have none (made before reservations existed). Read under the
 * workspace's deploy lock by reserveDeploy; alone it is a report, not a check.
 */
export async function deploysInLastDay(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from (
      select build_id from deploy_reservations
      where workspace_id = ${workspaceId} and reserved_at > now() - interval '24 hours' and given_up_at is null
      union
      select id from builds where workspace_id = ${workspaceId} and created_at > now() - interval '24 hours'
    ) deploys`;
  return row.n;
}

/**
 * Deploy attempts of the last 24 hours that made no build: refused on their merits by the worker,
 * failed, or given up when the wait ran out. Each one unpacked or read an upload, so each costs
 * (docs/decisions/projects-and-deploys.md).
 */
export async function failedDeploysInLastDay(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from deploy_reservations
    where workspace_id = ${workspaceId} and reserved_at > now() - interval '24 hours' and given_up_at is not null`;
  return row.n;
}

export type Reservation = { ok: true } | { ok: false; why: 'deploys' | 'failures' | 'used' };

/**
 * createBuild's claim, in one transaction under the workspace's deploy lock: the plan's deploys
 * are counted with every reservation of the last day, and so are the day's failed attempts
 * (held to the same number); then the deploy is reserved for `buildId` and the upload moves from
 * `received` to `building`. Racing calls queue on the lock, so on a plan of K deploys exactly K
 * pass. Nothing is written when a check fails.
 */
export async function reserveDeploy(
  sql: Sql,
  r: { workspaceId: string; uploadId: string | null; buildId: string; maxDeploys: number },
): Promise<Reservation> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('deploys:' || ${r.workspaceId}))`;
    if ((await deploysInLastDay(tx, r.workspaceId)) >= r.maxDeploys) return { ok: false, why: 'deploys' };
    if ((await failedDeploysInLastDay(tx, r.workspaceId)) >= r.maxDeploys) return { ok: false, why: 'failures' };
    // A pushed image has no upload to claim: the registry holds its bytes (issue 32).
    if (r.uploadId !== null) {
      const claimed = await tx`update uploads set state = 'building' where id = ${r.uploadId} and state = 'received' returning id`;
      if (claimed.length !== 1) return { ok: false, why: 'used' };
    }
    await tx`insert into deploy_reservations (build_id, workspace_id, upload_id) values (${r.buildId}, ${r.workspaceId}, ${r.uploadId})`;
    return { ok: true };
  }) as Promise<Reservation>;
}

/**
 * Gives a reservation up unless its build was made: the reservation is marked given up (it no
 * longer counts as a deploy, and counts as a failed attempt) and the upload goes back to
 * `received`, free for another createBuild, or, when `refusal` is given (the archive check refused
 * the bytes), to `refused` for good. Returns whether the build was made after all, and the upload
 * refused, if any, whose bytes the caller deletes. Both this and the worker's commit take the
 * reservation's row lock, so exactly one wins: a build made first is kept; a reservation given up
 * first stops the commit.
 */
export async function releaseDeploy(
  sql: Sql,
  buildId: string,
  refusal: string | null = null,
): Promise<{ made: boolean; refusedUploadId: string | null }> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ uploadId: string | null; made: boolean; givenUpAt: Date | null }[]>`
      select upload_id, made, given_up_at from deploy_reservations where build_id = ${buildId} for update`;
    if (!row || row.givenUpAt) return { made: false, refusedUploadId: null };
    if (row.made) return { made: true, refusedUploadId: null };
    await tx`update deploy_reservations set given_up_at = now() where build_id = ${buildId}`;
    const next = refusal === null ? 'received' : 'refused';
    const moved = await tx`
      update uploads set state = ${next}, refusal = ${refusal}
      where id = ${row.uploadId} and state = 'building' returning id`;
    return { made: false, refusedUploadId: refusal !== null && moved.length ? row.uploadId : null };
  }) as Promise<{ made: boolean; refusedUploadId: string | null }>;
}

/**
 * Reservations neither made nor given up `hours` after they were taken: the createBuild that held
 * one died while it waited (its api stopped), so nothing will ever give it up, and its upload
 * stays `building` (held against the upload quota) for good. The sweep gives them up.
 */
export async function staleReservations(sql: Sql, hours: number): Promise<string[]> {
  const rows = await sql<{ buildId: string }[]>`
    select build_id from deploy_reservations
    where not made and given_up_at is null and reserved_at < now() - make_interval(hours => ${hours})`;
  return rows.map((r) => r.buildId);
}

/**
 * The worker's side of the reservation, inside the transaction that writes the build row: marks
 * it made and says whether it still stands. False means createBuild gave the deploy up (its wait
 * ran out or the job failed): the build must not be made.
 */
export async function markDeployMade(tx: Db, buildId: string): Promise<boolean> {
  const rows = await tx`update deploy_reservations set made = true where build_id = ${buildId} and given_up_at is null returning build_id`;
  return rows.length === 1;
}

/** The story step ids of each live build in the workspace (or of one project), in the manifest's order; a build without a story is left out. */
export async function liveStories(sql: Db, workspaceId: string, projectId: string | null = null): Promise<Map<string, string[]>> {
  const rows = await sql<{ projectId: string; steps: string[] }[]>`
    select p.id as project_id, array(select s->>'id' from jsonb_array_elements(b.manifest->'story') s) as steps
    from projects p join builds b on b.id = p.live_build_id
    where p.workspace_id = ${workspaceId} and (${projectId}::uuid is null or p.id = ${projectId}::uuid)
      and jsonb_typeof(b.manifest->'story') = 'array' and jsonb_array_length(b.manifest->'story') > 0`;
  return new Map(rows.map((r) => [r.projectId, r.steps]));
}

/** A build with its manifest as the deploy checked and stored it. */
export type BuildManifest = Pick<BuildRow, 'id' | 'workspaceId' | 'projectId' | 'kind'> & { manifest: Manifest };

/**
 * The one reader of a stored manifest. jsonb comes back with its keys as stored (core/infra/db.ts
 * converts column names only), so run.env's `MOCK_MODE` and an app id `sign-up` stay as written.
 */
export async function manifestOfBuild(db: Db, buildId: string): Promise<BuildManifest | null> {
  const [row] = await db<BuildManifest[]>`select id, workspace_id, project_id, kind, manifest from builds where id = ${buildId}`;
  return row ?? null;
}

/** The project's live build and its manifest; null with nothing live. */
export async function liveManifestOf(db: Db, project: { liveBuildId: string | null }): Promise<BuildManifest | null> {
  return project.liveBuildId ? manifestOfBuild(db, project.liveBuildId) : null;
}

/**
 * The last step of every build job: the build row appears and the upload is spent, in one
 * transaction. Until this commits nothing of the build is visible; run twice, it changes nothing.
 * Returns false, making nothing, when createBuild gave the deploy up before the job got here
 * (its reservation was released, the upload handed back: docs/decisions/projects-and-deploys.md).
 */
export async function commitBuild(
  sql: Sql,
  job: BuildJob,
  made: { sizeBytes: number; fileCount?: number; unpackedBytes?: number; image?: Record<string, unknown>; digest?: string },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    if (!(await markDeployMade(tx, job.buildId))) return false;
    await tx`
      insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes, note, rehearsal,
                          file_count, unpacked_bytes, image, digest, image_manifest, created_by)
      values (${job.buildId}, ${job.workspaceId}, ${job.projectId}, ${job.uploadId}, ${String(job.manifest.kind)},
              ${tx.json(job.manifest as never)}, ${made.sizeBytes}, ${job.note}, ${job.rehearsal ? tx.json(job.rehearsal as never) : null},
              ${made.fileCount ?? null}, ${made.unpackedBytes ?? null}, ${made.image ? tx.json(made.image as never) : null}, ${made.digest ?? null}, ${job.imageManifest ?? null}, ${job.createdBy})
      on conflict (id) do nothing`;
    if (job.uploadId) await tx`update uploads set state = 'used', used_at = now() where id = ${job.uploadId} and state <> 'used'`;
    return true;
  }) as Promise<boolean>;
}

/** Whether an earlier run of this build job already made the build. */
export async function buildExists(sql: Sql, buildId: string): Promise<boolean> {
  const [row] = await sql`select 1 from builds where id = ${buildId}`;
  return Boolean(row);
}
