import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { checkedBlobSizes, forgetCheckedBlobSizes, recordCheckedBlobSizes } from './checked-blob-sizes.sql.js';

// The layer sizes a pushed image's check read, kept per workspace: another workspace never gets
// them (its own check asks the registry), a size kept is never changed, and a blob the garbage
// collection deleted is forgotten for every workspace.

let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

const digest = () => `sha256:${randomBytes(32).toString('hex')}`;

it('gives a workspace only the sizes its own checks read, and keeps the first size a digest was read at', async () => {
  const [mine, theirs] = [await seedWorkspace(sql), await seedWorkspace(sql)];
  const [a, b, c] = [digest(), digest(), digest()];
  await recordCheckedBlobSizes(
    sql,
    mine,
    new Map([
      [a, 10],
      [b, 2_000_000_000_000],
    ]),
  );
  expect(await checkedBlobSizes(sql, mine, [a, b, c])).toEqual(
    new Map([
      [a, 10],
      [b, 2_000_000_000_000],
    ]),
  );
  expect(await checkedBlobSizes(sql, theirs, [a, b, c])).toEqual(new Map());
  await recordCheckedBlobSizes(sql, mine, new Map([[a, 11]]));
  expect((await checkedBlobSizes(sql, mine, [a])).get(a)).toBe(10);
});

it('forgets a deleted blob for every workspace that had it checked, and nothing else', async () => {
  const [one, two] = [await seedWorkspace(sql), await seedWorkspace(sql)];
  const [gone, kept] = [digest(), digest()];
  await recordCheckedBlobSizes(
    sql,
    one,
    new Map([
      [gone, 5],
      [kept, 6],
    ]),
  );
  await recordCheckedBlobSizes(sql, two, new Map([[gone, 5]]));
  expect(await forgetCheckedBlobSizes(sql, [gone])).toBe(2);
  expect(await checkedBlobSizes(sql, one, [gone, kept])).toEqual(new Map([[kept, 6]]));
  expect(await checkedBlobSizes(sql, two, [gone])).toEqual(new Map());
});
