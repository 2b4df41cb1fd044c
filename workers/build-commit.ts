import type { BuildJob } from '../services/core/jobs.js';
import type { Sql } from '../services/core/db.js';
import { markDeployMade } from '../services/data/builds.sql.js';

/**
 * The last step of every build job: the build row appears and the upload is spent, in one
 * transaction. Until this commits nothing of the build is visible; run twice, it changes nothing.
 * Returns false, making nothing, when createBuild gave the deploy up before the job got here
 * (its reservation was released, the upload handed back: docs/decisions.md, "A createBuild that
 * times out").
 */
export async function commitBuild(sql: Sql, job: BuildJob, made: { sizeBytes: number; fileCount?: number; unpackedBytes?: number; image?: Record<string, unknown>; digest?: string }): Promise<boolean> {
  return sql.begin(async (tx) => {
    if (!(await markDeployMade(tx, job.buildId))) return false;
    await tx`
      insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes, note, rehearsal,
                          file_count, unpacked_bytes, image, digest, created_by)
      values (${job.buildId}, ${job.workspaceId}, ${job.projectId}, ${job.uploadId}, ${String(job.manifest.kind)},
              ${tx.json(job.manifest as never)}, ${made.sizeBytes}, ${job.note}, ${job.rehearsal ? tx.json(job.rehearsal as never) : null},
              ${made.fileCount ?? null}, ${made.unpackedBytes ?? null}, ${made.image ? tx.json(made.image as never) : null}, ${made.digest ?? null}, ${job.createdBy})
      on conflict (id) do nothing`;
    await tx`update uploads set state = 'used', used_at = now() where id = ${job.uploadId} and state <> 'used'`;
    return true;
  }) as Promise<boolean>;
}

/** Whether an earlier run of this job already made the build. */
export async function buildExists(sql: Sql, buildId: string): Promise<boolean> {
  const [row] = await sql`select 1 from builds where id = ${buildId}`;
  return Boolean(row);
}
