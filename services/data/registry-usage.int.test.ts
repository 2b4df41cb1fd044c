import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSql, type Db, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { registryBytesUsed, reserveRegistryBytes, unbuiltManifests } from './registry-usage.sql.js';

// The sweep's round of manifests no build names (unbuiltManifests): oldest first, but one
// workspace's many take only its share of a round. The rows live in a transaction that is rolled
// back, so no other test's sweep ever sees them (the sweep reads every workspace's).

let sql: Sql;
beforeAll(() => {
  // Enough connections for the reservations below to reach Postgres at once.
  sql = createSql(testEnv().DATABASE_URL, { max: 10 });
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

it('lets reservations made at once take the quota only once, each reservation whole or not at all', async () => {
  const workspaceId = await seedWorkspace(sql);
  try {
    // Ten uploads of 150 bytes at once against 1,000: six fit, whichever six; never seven.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => reserveRegistryBytes(sql, workspaceId, `upload:${i}`, 150, 1000)),
    );
    expect(answers.filter(Boolean)).toHaveLength(6);
    expect(await registryBytesUsed(sql, workspaceId)).toBe(900);
    const rows = await sql<{ upload: string }[]>`select upload from registry_pushes where workspace_id = ${workspaceId}`;
    expect(rows.map((row) => row.upload).sort()).toEqual(answers.flatMap((fits, i) => (fits ? [`upload:${i}`] : [])).sort());

    // An upload reserving more (a chunked body's next step) adds to its own row while it fits.
    const first = answers.indexOf(true);
    expect(await reserveRegistryBytes(sql, workspaceId, `upload:${first}`, 100, 1000)).toBe(true);
    expect(await registryBytesUsed(sql, workspaceId)).toBe(1000);
    expect(await reserveRegistryBytes(sql, workspaceId, `upload:${first}`, 1, 1000)).toBe(false);
    expect(await reserveRegistryBytes(sql, workspaceId, 'upload:late', 1, 1000)).toBe(false);
    expect(await registryBytesUsed(sql, workspaceId)).toBe(1000);
    const [late] = await sql`select 1 from registry_pushes where workspace_id = ${workspaceId} and upload = 'upload:late'`;
    expect(late).toBeUndefined();
  } finally {
    await sql`delete from registry_pushes where workspace_id = ${workspaceId}`;
  }
});
