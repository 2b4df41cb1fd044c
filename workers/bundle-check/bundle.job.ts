import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { uploadKey } from '../../services/data/uploads.sql.js';
import { BuildJob, type BuildOutcome } from '../../services/core/infra/jobs.js';
import { buildExists, commitBuild } from '../../services/data/builds.sql.js';
import type { WorkerDeps } from '../worker-deps.js';
import { BundleRefusal, readBundle, type BundleImage } from './read-bundle.js';
import { readPushedImage } from './read-pushed-image.js';
import { checkedBlobSizes, recordCheckedBlobSizes } from '../../services/data/checked-blob-sizes.sql.js';
import { registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { repositoryOf } from '../../services/core/infra/registry/registry-token.js';

/**
 * bundle.check: a container build's bundle (or its image pushed to the registry) must be readable, within the bundle limits, hold one
 * image, and have a start command (the image's Cmd or Entrypoint, or the manifest's run.start).
 * Otherwise 422 archive. The image's id (its config's digest) is recorded: the runner loads and
 * tags the image by it, never by a name the bundle chose.
 */
export async function bundle(deps: WorkerDeps, job: Job): Promise<BuildOutcome> {
  const parsed = BuildJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad bundle payload: ${parsed.error.message}`);
  const data = parsed.data;
  if (await buildExists(deps.sql, data.buildId)) return { ok: true, buildId: data.buildId };

  const limits = {
    maxEntries: deps.config.BUNDLE_MAX_ENTRIES,
    maxHeldBytes: deps.config.BUNDLE_MAX_HELD_BYTES,
    maxUnpackedBytes: deps.config.BUNDLE_MAX_UNPACKED_BYTES,
  };
  let image: BundleImage;
  let sizeBytes: number;
  try {
    if (data.imageManifest) {
      // A pushed image (issue 32): the same rules, read from its manifest and config in the registry.
      const registry = registryOf(deps.config);
      if (!registry) return { ok: false, reason: 'archive', detail: 'this platform has no image registry' };
      const pushed = await readPushedImage(
        registry,
        repositoryOf(data.workspaceId, data.projectId),
        data.imageManifest,
        limits,
        (digests) => checkedBlobSizes(deps.sql, data.workspaceId, digests),
        data.imageManifestText ?? undefined,
      );
      // Every size read matched its layer's: the workspace's next check need not ask for it.
      await recordCheckedBlobSizes(deps.sql, data.workspaceId, pushed.sizesRead);
      const { sizesRead: _read, ...described } = pushed;
      image = described;
      sizeBytes = image.archiveBytes;
    } else {
      const upload = data.uploadId ? await deps.storage.get(uploadKey(data.uploadId)) : null;
      if (!upload) return { ok: false, reason: 'archive', detail: "the upload's bytes are gone from storage" };
      image = await readBundle(upload.body, limits);
      sizeBytes = upload.size;
    }
  } catch (err) {
    if (err instanceof BundleRefusal) return { ok: false, reason: 'archive', detail: err.message };
    throw err;
  }
  const run = data.manifest.run as { start?: string[] } | undefined;
  if (!run?.start?.length && !image.cmd && !image.entrypoint) {
    return {
      ok: false,
      reason: 'archive',
      detail: 'the container bundle has no start command: give the image a CMD or the manifest run.start',
    };
  }
  if (!(await commitBuild(deps.sql, data, { sizeBytes, image: { ...image } }))) {
    return { ok: false, reason: 'archive', detail: 'the deploy was given up before its bundle was checked' };
  }
  deps.log.info({ buildId: data.buildId, imageId: image.id, archiveBytes: image.archiveBytes }, 'container bundle checked');
  return { ok: true, buildId: data.buildId };
}
