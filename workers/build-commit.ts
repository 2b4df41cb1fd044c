import type { BuildJob } from '../services/core/jobs.js';
import type { Sql } from '../services/core/db.js';

/**
 * The last step of every build job: the build row appears and the upload is spent, in one
 * transaction. Until this commits nothing of the build is visible; run twice, it changes nothing.
 */
export async function commitBuild(sql: Sql, job: BuildJob, made: { sizeBytes: number; fileCount?: number; unpackedBytes?: number; image?: Record<string, unknown> }) {
  await sql.begin(async (tx) => {
    await tx`
      insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes, note, rehearsal,
                          file_count, unpacked_bytes, image, created_by)
      values (${job.buildId}, ${job.workspaceId}, ${job.projectId}, ${job.uploadId}, ${String(job.manifest.kind)},
              ${tx.json(job.manifest as never)}, ${made.sizeBytes}, ${job.note}, ${job.rehearsal ? tx.json(job.rehearsal as never) : null},
              ${made.fileCount ?? null}, ${made.unpackedBytes ?? null}, ${made.image ? tx.json(made.image as never) : null}, ${job.createdBy})
      on conflict (id) do nothing`;
    await tx`update uploads set state = 'used', used_at = now() where id = ${job.uploadId} and state <> 'used'`;
  });
}

/** Whether an earlier run of this job already made the build. */
export async function buildExists(sql: Sql, buildId: string): Promise<boolean> {
  const [row] = await sql`select 1 from builds where id = ${buildId}`;
  return Boolean(row);
}
