import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { StaticDigest, checkStaticStepPaths } from '@demo-rooms/contract/node';
import type { Manifest } from '@demo-rooms/contract/manifest';
import { contentTypeOf } from '../../services/core/rules/content-type.js';
import { BuildJob, type BuildOutcome } from '../../services/core/infra/jobs.js';
import { unpackBytes } from '../../services/core/infra/metrics.js';
import { uploadKey } from '../../services/data/uploads.sql.js';
import type { WorkerDeps } from '../worker-deps.js';
import { buildExists, buildFilesPrefix, commitBuild } from '../../services/data/builds.sql.js';
import { ArchiveRefusal, unpackArchive, type ArchiveFile } from './unpack-archive.js';

/**
 * archive.unpack: a static build's gzipped tar, streamed from the object store through the
 * archive checks into the build's own prefix. A refused archive leaves nothing behind; a run
 * killed halfway is retried from a clean prefix, so every run ends in the same state.
 */
export async function unpack(deps: WorkerDeps, job: Job): Promise<BuildOutcome> {
  const parsed = BuildJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad unpack payload: ${parsed.error.message}`);
  const data = parsed.data;
  if (await buildExists(deps.sql, data.buildId)) return { ok: true, buildId: data.buildId };

  const prefix = buildFilesPrefix(data.buildId);
  await deps.storage.deletePrefix(prefix);
  if (!data.uploadId) throw new UnrecoverableError('a static build is made from an upload');
  const upload = await deps.storage.get(uploadKey(data.uploadId));
  if (!upload) return { ok: false, reason: 'archive', detail: "the upload's bytes are gone from storage" };

  const written: ArchiveFile[] = [];
  const digest = new StaticDigest();
  let bytes = 0;
  try {
    await unpackArchive(upload.body, async (file, body) => {
      // Each file's sha256 as it passes into the store: the build's digest (Build.digest).
      const hash = createHash('sha256');
      const hashing = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      body.on('error', (err) => hashing.destroy(err));
      await deps.storage.put(prefix + file.path, body.pipe(hashing), { size: file.size, contentType: contentTypeOf(file.path) });
      digest.add(file.path, hash.digest('hex'));
      written.push(file);
      bytes += file.size;
      if (written.length % 100 === 0) await job.updateProgress({ files: written.length, bytes });
    });
  } catch (err) {
    await deps.storage.deletePrefix(prefix);
    if (err instanceof ArchiveRefusal) return { ok: false, reason: 'archive', detail: err.detail };
    throw err;
  }

  // Rule 8 of the manifest, against the files that arrived.
  const problems = checkStaticStepPaths(data.manifest as Manifest, new Set(written.map((f) => f.path)));
  if (problems.length) {
    await deps.storage.deletePrefix(prefix);
    return { ok: false, reason: 'manifest', issues: problems.map((p) => ({ path: `manifest.${p.path}`, message: p.message })) };
  }

  if (
    !(await commitBuild(deps.sql, data, {
      sizeBytes: upload.size,
      fileCount: written.length,
      unpackedBytes: bytes,
      digest: digest.digest(),
    }))
  ) {
    // createBuild gave the deploy up while we unpacked: nothing of it may stay.
    await deps.storage.deletePrefix(prefix);
    return { ok: false, reason: 'archive', detail: 'the deploy was given up before its files were unpacked' };
  }
  unpackBytes.inc(bytes);
  await job.updateProgress({ files: written.length, bytes, done: true });
  deps.log.info({ buildId: data.buildId, files: written.length, bytes }, 'static build unpacked');
  return { ok: true, buildId: data.buildId };
}
