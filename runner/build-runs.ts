import type { Sql } from '../services/core/db.js';

// What a copy of a build runs: the manifest's run.start, run.env and health path. Builds never
// change, so each is read once. The manifest is read as text: the database client camel-cases
// jsonb keys, which would turn run.env's MOCK_MODE into MOCKMODE.

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
  return async function runOf(buildId: string): Promise<BuildRun> {
    const hit = cache.get(buildId);
    if (hit) return hit;
    const [row] = await sql<{ workspaceId: string; projectId: string; kind: 'static' | 'container'; manifest: string }[]>`
      select workspace_id, project_id, kind, manifest::text as manifest from builds where id = ${buildId}`;
    if (!row) throw new NoSuchBuild(`no build ${buildId}`);
    const manifest = JSON.parse(row.manifest) as { health?: string; run?: { start?: string[]; env?: Record<string, string> } };
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
  };
}
export type BuildRuns = ReturnType<typeof createBuildRuns>;
