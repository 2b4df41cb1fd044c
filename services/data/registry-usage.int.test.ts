import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSql, type Db, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { unbuiltManifests } from './registry-usage.sql.js';

// The sweep's round of manifests no build names (unbuiltManifests): oldest first, but one
// workspace's many take only its share of a round. The rows live in a transaction that is rolled
// back, so no other test's sweep ever sees them (the sweep reads every workspace's).

let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

/** A manifest PUT the gate recorded, pushed `daysAgo` days ago and named by no build. */
async function pushedManifest(tx: Db, workspaceId: string, daysAgo: number): Promise<string> {
  const upload = `manifest:${randomUUID()}`;
  await tx`
    insert into registry_pushes (workspace_id, upload, bytes, digest, project_id, started_at)
    values (${workspaceId}, ${upload}, 500, ${`sha256:${randomBytes(32).toString('hex')}`}, ${randomUUID()},
            now() - make_interval(days => ${daysAgo}))`;
  return upload;
}

class RolledBack extends Error {}

it("gives a workspace that pushed many unbuilt manifests its share of a round, not every other workspace's", async () => {
  const [flooding, other] = [await seedWorkspace(sql), await seedWorkspace(sql)];
  await sql
    .begin(async (tx) => {
      // Older than anything another test leaves: these come first in the round's order.
      const floods: string[] = [];
      for (let i = 0; i < 12; i++) floods.push(await pushedManifest(tx, flooding, 4000 - i));
      const others = await pushedManifest(tx, other, 3000);

      const round = await unbuiltManifests(tx, 10, 2);
      const mine = round.filter((due) => [flooding, other].includes(due.workspaceId));
      expect(mine.map((due) => due.upload)).toEqual([floods[0], floods[1], others]);

      // Without a share, the flood would have taken the whole round.
      const unshared = await unbuiltManifests(tx, 10, 10);
      expect(unshared.filter((due) => due.workspaceId === flooding)).toHaveLength(10);
      expect(unshared.some((due) => due.upload === others)).toBe(false);
      throw new RolledBack();
    })
    .catch((err) => {
      if (!(err instanceof RolledBack)) throw err;
    });
});
