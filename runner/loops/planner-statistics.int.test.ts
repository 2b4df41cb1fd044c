import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CROWD_RULE } from '../../services/data/planner-statistics.sql.js';
import { changeCopies, copiesStatistics, statisticsOwner } from '../../test/support/planner-statistics.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// A crowd's rows reach the planner's statistics within seconds of the runner's loop, not after
// autovacuum's minute (services/data/planner-statistics.sql.ts).
let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner();
});
afterAll(async () => {
  await runner?.close();
});

describe('planner statistics', () => {
  it('are made again by a runner once runner_copies changed by more than they count', async () => {
    const owner = await statisticsOwner(runner.sql);
    const before = await copiesStatistics(runner.sql);
    // Past the rule whatever the table holds now: more changes than it allows for the rows counted.
    const allowed = (rows: number) => Math.max(CROWD_RULE.minChanges, Math.ceil(CROWD_RULE.share * rows));
    await changeCopies(runner.sql, owner, allowed(before.rows) + 100);
    // The test database is shared by every file of a run, and autovacuum may analyze or vacuum
    // the table first (its minute comes round while the runner's loop waits on a loaded machine):
    // the changes are then counted and the runner rightly has nothing to do, so more are made.
    const after = await eventually(async () => {
      const s = await copiesStatistics(runner.sql);
      if (s.analyzes > before.analyzes) return s;
      if (s.changes <= allowed(s.rows)) await changeCopies(runner.sql, owner, allowed(s.rows) - s.changes + 100);
      return null;
    }, 30_000);
    // Within the rule again: the rows just written are counted.
    expect(after.changes).toBeLessThanOrEqual(Math.max(CROWD_RULE.minChanges, CROWD_RULE.share * after.rows));
  });
});
