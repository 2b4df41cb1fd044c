import type { Sql } from '../../services/core/infra/db.js';
import { registryDelete, type Registry } from '../../services/core/infra/registry/registry-pull.js';
import { repositoryOf } from '../../services/core/infra/registry/registry-token.js';
import { markUnbuiltManifestDeleted, unbuiltManifests } from '../../services/data/registry-usage.sql.js';

/**
 * Manifests pushed a day ago or more that no build of their project names (registry-usage.sql.ts
 * says which), deleted from the registry: `pitch deploy` pushes a redeploy's manifest beside its
 * rehearsal, and a rehearsal that then fails leaves one behind; so does a push by hand. Named by
 * no build, neither the sweep of superseded builds nor the garbage collection would ever free its
 * layers. Once deleted they are unreferenced, and the collection frees them. A manifest already
 * gone (404) counts as deleted.
 */
export async function sweepUnbuiltManifests(sql: Sql, registry: Registry | null, batch = 50): Promise<number> {
  if (!registry) return 0;
  let deleted = 0;
  for (const manifest of await unbuiltManifests(sql, batch)) {
    await registryDelete(registry, repositoryOf(manifest.workspaceId, manifest.projectId), `manifests/${manifest.digest}`);
    await markUnbuiltManifestDeleted(sql, manifest.workspaceId, manifest.upload);
    deleted += 1;
  }
  return deleted;
}
