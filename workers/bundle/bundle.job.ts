import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { uploadKey } from '../../services/data/uploads.sql.js';
import { BuildJob, type BuildOutcome } from '../../services/core/jobs.js';
import { buildExists, commitBuild } from '../build-commit.js';
import type { WorkerDeps } from '../worker-deps.js';
import { BundleRefusal, readBundle } from './read-bundle.js';

/**
 * bundle.check: a container build's bundle must be readable, hold one image, and have a start
 * command (the image's Cmd or Entrypoint, or the manifest's run.start). Otherwise 422 archive.
 */
export async function bundle(deps: WorkerDeps, job: Job): Promise<BuildOutcome> {
  const parsed = BuildJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad bundle payload: ${parsed.error.message}`);
  const data = parsed.data;
  if (await buildExists(deps.sql, data.buildId)) return { ok: true, buildId: data.buildId };

  const upload = await deps.storage.get(uploadKey(data.uploadId));
  if (!upload) return { ok: false, reason: 'archive', detail: 'the upload\'s bytes are gone from storage' };
  let image;
  try {
    image = await readBundle(upload.body);
  } catch (err) {
    if (err instanceof BundleRefusal) return { ok: false, reason: 'archive', detail: err.message };
    throw err;
  }
  const run = data.manifest.run as { start?: string[] } | undefined;
  if (!run?.start?.length && !image.cmd && !image.entrypoint) {
    return { ok: false, reason: 'archive', detail: 'the container bundle has no start command: give the image a CMD or the manifest run.start' };
  }
  await commitBuild(deps.sql, data, { sizeBytes: upload.size, image: { ...image } });
  deps.log.info({ buildId: data.buildId, tags: image.repoTags }, 'container bundle checked');
  return { ok: true, buildId: data.buildId };
}
