import type { Sql } from '../../services/core/infra/db.js';
import { registryDelete, type Registry } from '../../services/core/infra/registry/registry-pull.js';
import { repositoryOf } from '../../services/core/infra/registry/registry-token.js';
import { markManifestDeleted, pushedManifestsToDelete } from '../../services/data/build-images.sql.js';

/**
 * The manifests of purged projects' pushed builds and of superseded ones (build-images.sql.ts
 * says which), deleted from the registry (DELETE /v2/<repository>/manifests/<digest>; the
 * registry has `storage.delete` on). Their layers are then
 * unreferenced, and `docker-registry garbage-collect` frees them (docs/runner.md: run it in a
 * maintenance window, since a collection during a push can take that push's fresh layers).
 * A manifest already gone (404) counts as deleted.
 */
export async function sweepPushedManifests(sql: Sql, registry: Registry | null, batch = 50): Promise<number> {
  if (!registry) return 0;
  let deleted = 0;
  for (const build of await pushedManifestsToDelete(sql, batch)) {
    await registryDelete(registry, repositoryOf(build.workspaceId, build.projectId), `manifests/${build.imageManifest}`);
    await markManifestDeleted(sql, build.workspaceId, build.id);
    deleted += 1;
  }
  return deleted;
}
