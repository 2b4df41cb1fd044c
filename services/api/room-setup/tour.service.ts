import type { Rehearsal, Tour, TourStep } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { buildIn } from '../../data/builds.sql.js';
import type { ProjectRow } from '../../data/projects.sql.js';

// getTour (spec 2.7): the live build's story as the deploy rehearsed it. A step's result comes
// from the rehearsal createBuild recorded; a build without one (or a step it did not report) is
// `not-reported`, never `passed`.

type Manifest = {
  apps: { id: string; name: string }[];
  story?: { id: string; title: string; app: string; path?: string; run?: (string | { call: string })[] }[];
};

export async function tourOf(sql: Sql, project: ProjectRow): Promise<Tour> {
  if (!project.liveBuildId) return { build: null, steps: [], reported: false };
  const build = await buildIn(sql, project.id, project.liveBuildId);
  const manifest = build.manifest as unknown as Manifest;
  const rehearsal = build.rehearsal as Rehearsal | null;
  const steps = (manifest.story ?? []).map((step): TourStep => {
    const seen = rehearsal?.steps.find((s) => s.id === step.id);
    return {
      id: step.id,
      title: step.title,
      app: step.app,
      appName: manifest.apps.find((a) => a.id === step.app)?.name ?? null,
      path: step.path ?? null,
      calls: (step.run ?? []).map((c) => (typeof c === 'string' ? c : c.call)),
      result: seen?.result ?? 'not-reported',
      rehearsed: seen?.calls ?? [],
    };
  });
  return {
    build: {
      id: build.id,
      kind: build.kind,
      createdAt: build.createdAt.toISOString(),
      rehearsedAt: rehearsal?.at ?? null,
      tool: rehearsal?.tool ?? null,
    },
    steps,
    reported: rehearsal !== null,
  };
}
