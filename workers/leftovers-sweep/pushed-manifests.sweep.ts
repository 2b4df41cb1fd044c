import type { Sql } from '../../services/core/infra/db.js';
import { registryDelete, type Registry } from '../../services/core/infra/registry/registry-pull.js';
import { repositoryOf } from '../../services/core/infra/registry/registry-token.js';
import { markManifestDeleted, pushedManifestsToDelete } from '../../services/data/build-images.sql.js';
import { markUnbuiltManifestDeleted, unbuiltManifests } from '../../services/data/registry-usage.sql.js';

/** A manifest to delete from its project's repository, and how to record that it was. */
interface ManifestToDelete {
  workspaceId: string;
  projectId: string;
  digest: string;
  mark(): Promise<void>;
}

/**
 * Manifests deleted from the registry (DELETE /v2/<repository>/manifests/<digest>; the registry
 * has `storage.delete` on), so that `docker-registry garbage-collect` frees the layers only they
 * named (registry-gc.sweep.ts). A manifest already gone (404) counts as deleted. Two kinds:
 * - `superseded`: purged projects' pushed builds and superseded ones (build-images.sql.ts says which);
 * - `unbuilt`: pushed a day ago or more and named by no build of their project (registry-usage.sql.ts):
 *   `pitch deploy` pushes a redeploy's manifest beside its rehearsal, and a rehearsal that then
 *   fails leaves one behind; so does a push by hand. Named by no build, nothing else would ever
 *   free its layers.
 */
export async function sweepManifests(sql: Sql, registry: Registry | null, batch = 50): Promise<{ superseded: number; unbuilt: number }> {
  if (!registry) return { superseded: 0, unbuilt: 0 };
  const superseded = (await pushedManifestsToDelete(sql, batch)).map((build) => ({
    ...build,
    digest: build.imageManifest,
    mark: () => markManifestDeleted(sql, build.workspaceId, build.id),
  }));
  const unbuilt = (await unbuiltManifests(sql, batch)).map((pushed) => ({
    ...pushed,
    mark: () => markUnbuiltManifestDeleted(sql, pushed.workspaceId, pushed.upload),
  }));
  return { superseded: await deleteEach(registry, superseded), unbuilt: await deleteEach(registry, unbuilt) };
}

async function deleteEach(registry: Registry, manifests: ManifestToDelete[]): Promise<number> {
  for (const manifest of manifests) {
    await registryDelete(registry, repositoryOf(manifest.workspaceId, manifest.projectId), `manifests/${manifest.digest}`);
    await manifest.mark();
  }
  return manifests.length;
}
