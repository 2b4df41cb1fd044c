import { isDeepStrictEqual } from 'node:util';
import type { Client, Build, Project } from '@demo-rooms/contract';
import type { Manifest } from '@demo-rooms/contract/manifest';
import { ask } from '../context.js';

/** The project's live build, if it has one: what an unchanged deploy would make again. */
export async function liveBuildOf(client: Client, project: Project | null): Promise<Build | null> {
  if (!project?.liveBuildId) return null;
  const builds = await ask('listing the builds', () => client.call('listBuilds', { params: { projectId: project.id } }));
  return builds.find((build) => build.id === project.liveBuildId) ?? null;
}

/**
 * Whether a deploy would make `live` again: the same kind, the same content (Build.digest: a
 * container's image id, which a build of unchanged sources keeps as every layer comes from the
 * cache; a static site's digest of paths and contents) and the same manifest as it would be sent.
 * The stored manifest is read back from JSON, so the one compared is too (keys left undefined drop
 * out; key order does not count).
 */
export function sameBuild(live: Build | null, kind: Build['kind'], digest: string, manifest: Manifest): live is Build {
  return (
    live !== null && live.kind === kind && live.digest === digest && isDeepStrictEqual(live.manifest, JSON.parse(JSON.stringify(manifest)))
  );
}
