import type { Manifest } from '../../contract/manifest/manifest.schema.js';
import type { BuildRow } from '../../data/builds.sql.js';

/** A build row as the contract's Build; `live` against the project's live build. */
export function buildView(b: BuildRow, liveBuildId: string | null) {
  return {
    id: b.id,
    projectId: b.projectId,
    kind: b.kind,
    manifest: b.manifest as Manifest,
    sizeBytes: Number(b.sizeBytes),
    note: b.note,
    live: b.id === liveBuildId,
    createdAt: b.createdAt.toISOString(),
    digest: digestOf(b),
  };
}

/** A container build's image id, recorded by the bundle check; a static build's content digest, by the unpack. */
function digestOf(b: BuildRow): string | null {
  if (b.kind === 'static') return b.digest ?? null;
  const id = b.image?.id;
  return typeof id === 'string' ? id : null;
}
