import { manifestNotes, type Manifest } from '@demo-rooms/contract/manifest';
import type { Build } from '@demo-rooms/contract';
import type { BuildRow } from '../../data/builds.sql.js';

/** A build row as the contract's Build; `live` against the project's live build. */
export function buildView(b: BuildRow, liveBuildId: string | null): Build {
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
    state: b.id === liveBuildId ? 'live' : 'ready',
    problems: problemsOf(b),
  };
}

/** A container build's image id, recorded by the bundle check; a static build's content digest, by the unpack. */
function digestOf(b: BuildRow): string | null {
  if (b.kind === 'static') return b.digest ?? null;
  const id = b.image?.id;
  return typeof id === 'string' ? id : null;
}

/** The manifest's advisory notes, then each story step the rehearsal saw fail (issue 29, item 7). */
function problemsOf(b: BuildRow): Build['problems'] {
  const notes = manifestNotes(b.manifest as Manifest).map(({ code, message }) => ({ code: code as string, message }));
  const steps = (b.rehearsal as { steps?: { id: string; result: string }[] } | null)?.steps ?? [];
  const failed = steps
    .filter((s) => s.result === 'failed')
    .map((s) => ({ code: 'rehearsal-failed', message: `The story step ${s.id} failed when pitch deploy rehearsed it.` }));
  return [...notes, ...failed];
}
