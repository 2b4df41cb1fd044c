import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { eventually } from '../../test/support/runner/test-runner.js';
import { changeCopies, copiesStatistics, statisticsOwner } from '../../test/support/planner-statistics.js';
import { analyzeStale } from './planner-statistics.sql.js';

// The crowd tables analyzed when they changed by more than the rule allows, by one host at a time.
// Other test files write runner_copies (and their runners analyze it) meanwhile: each case makes
// its own changes, and what a call analyzed is what it names.

let sql: Sql;
let owner: Awaited<ReturnType<typeof statisticsOwner>>;
beforeAll(async () => {
  sql = createSql(testEnv().DATABASE_URL, { max: 3 });
  owner = await statisticsOwner(sql);
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

describe('analyzeStale', () => {
  it('analyzes a table changed past the rule, and names it', async () => {
    await changeCopies(sql, owner, 5);
    const before = await copiesStatistics(sql);
    // Another file's runner may hold the turn for a moment: the call is tried until it has it.
    const analyzed = await eventually(async () => {
      const done = await analyzeStale(sql, ['runner_copies'], { minChanges: 0, share: 0 });
      return done.length ? done : null;
    }, 30_000);
    expect(analyzed).toEqual(['runner_copies']);
    expect((await copiesStatistics(sql)).analyzes).toBeGreaterThan(before.analyzes);
  });

  it('leaves a table whose changes are within the rule', async () => {
    await changeCopies(sql, owner, 5);
    expect(await analyzeStale(sql, ['runner_copies'], { minChanges: 1e12, share: 0 })).toEqual([]);
    expect(await analyzeStale(sql, ['runner_copies'], { minChanges: 0, share: 1e9 })).toEqual([]);
  });

  it('skips while another host is analyzing (holds the turn)', async () => {
    await changeCopies(sql, owner, 5);
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('runner.planner-statistics'))`;
      expect(await analyzeStale(sql, ['runner_copies'], { minChanges: 0, share: 0 })).toEqual([]);
    });
  });
});
