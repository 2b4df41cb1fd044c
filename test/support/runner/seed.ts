import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../services/core/infra/db.js';
import type { PlanName } from '../../../services/core/rules/plans.js';
import type { Storage } from '../../../services/core/infra/storage.js';
import { uploadKey } from '../../../services/data/uploads.sql.js';

// Rows of a workspace, project and live container build, as the api and the bundle worker leave
// them, written directly so runner tests need not deploy through the api each time (one test does:
// runner.e2e.int.test.ts). The bundle's bytes go to the real object store.

export interface Seeded {
  workspaceId: string;
  projectId: string;
  buildId: string;
}

export async function seedWorkspace(sql: Sql, plan: PlanName = 'pro'): Promise<string> {
  const [w] = await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('runner test', 'team', ${plan}) returning id`;
  return w.id;
}

export async function seedContainerBuild(
  sql: Sql,
  storage: Storage,
  bundle: Buffer,
  opts: { workspaceId: string; manifest?: Record<string, unknown>; live?: boolean },
): Promise<Seeded> {
  const projectId = randomUUID();
  const uploadId = randomUUID();
  const buildId = randomUUID();
  const manifest = {
    kind: 'container',
    name: 'Runner demo',
    health: '/healthz',
    apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
    run: { start: ['node', 'server.js'] },
    ...opts.manifest,
  };
  await storage.put(uploadKey(uploadId), bundle, { size: bundle.length });
  await sql.begin(async (tx) => {
    await tx`insert into projects (id, workspace_id, slug, name) values (${projectId}, ${opts.workspaceId}, ${`r-${projectId.slice(0, 13)}`}, 'Runner demo')`;
    await tx`insert into uploads (id, workspace_id, project_id, kind, size_bytes, state, received_at, used_at)
             values (${uploadId}, ${opts.workspaceId}, ${projectId}, 'container', ${bundle.length}, 'used', now(), now())`;
    await tx`insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes, image)
             values (${buildId}, ${opts.workspaceId}, ${projectId}, ${uploadId}, 'container', ${tx.json(manifest)}, ${bundle.length},
                     ${tx.json({ cmd: ['node', 'server.js'], workingDir: '/app' })})`;
    if (opts.live !== false) await tx`update projects set live_build_id = ${buildId} where id = ${projectId}`;
  });
  return { workspaceId: opts.workspaceId, projectId, buildId };
}

/** The rows alone (no bundle in the store), for tests of the records that never start a copy. */
export async function seedBuildRecords(sql: Sql, workspaceId: string): Promise<Seeded> {
  const projectId = randomUUID();
  const uploadId = randomUUID();
  const buildId = randomUUID();
  await sql.begin(async (tx) => {
    await tx`insert into projects (id, workspace_id, slug, name) values (${projectId}, ${workspaceId}, ${`d-${projectId.slice(0, 13)}`}, 'D')`;
    await tx`insert into uploads (id, workspace_id, project_id, kind, size_bytes, state, received_at, used_at)
             values (${uploadId}, ${workspaceId}, ${projectId}, 'container', 1, 'used', now(), now())`;
    await tx`insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes)
             values (${buildId}, ${workspaceId}, ${projectId}, ${uploadId}, 'container', ${tx.json({ kind: 'container' })}, 1)`;
    await tx`update projects set live_build_id = ${buildId} where id = ${projectId}`;
  });
  return { workspaceId, projectId, buildId };
}
