import type { Sql } from '../../services/core/infra/db.js';
import { manifestOfBuild } from '../../services/data/builds.sql.js';

// What a copy of a build runs: the manifest's run.start, run.env and health path. Builds never
// change, so each is read once: a crowd's first viewers of a build share the one read in flight
// (each reading it for itself put hundreds of manifest reads in front of their own admissions).

export interface BuildRun {
  buildId: string;
  workspaceId: string;
  projectId: string;
  kind: 'static' | 'container';
  start: string[] | null;
  env: Record<string, string>;
  health: string;
}

export class NoSuchBuild extends Error {}

export function createBuildRuns(sql: Sql) {
  const cache = new Map<string, BuildRun>();
  const reading = new Map<string, Promise<BuildRun>>();
  return function runOf(buildId: string): Promise<BuildRun> {
    const hit = cache.get(buildId);
    if (hit) return Promise.resolve(hit);
    let read = reading.get(buildId);
    if (!read) {
      read = readRun(buildId).finally(() => reading.delete(buildId));
      reading.set(buildId, read);
    }
    return read;
  };

  async function readRun(buildId: string): Promise<BuildRun> {
    const row = await manifestOfBuild(sql, buildId);
    if (!row) throw new NoSuchBuild(`no build ${buildId}`);
    const manifest = row.manifest as { health?: string; run?: { start?: string[]; env?: Record<string, string> } };
    const run: BuildRun = {
      buildId,
      workspaceId: row.workspaceId,
      projectId: row.projectId,
      kind: row.kind,
      start: manifest.run?.start?.length ? manifest.run.start : null,
      env: manifest.run?.env ?? {},
      health: manifest.health ?? '/healthz',
    };
    if (cache.size > 1000) cache.clear();
    cache.set(buildId, run);
    return run;
  }
}
export type BuildRuns = ReturnType<typeof createBuildRuns>;
