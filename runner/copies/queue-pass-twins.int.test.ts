import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql } from '../../services/core/infra/db.js';
import type { PlanName } from '../../services/core/rules/plans.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { testRunnerEnv } from '../../test/support/runner/test-runner.js';
import { admitQueuedOnce } from './admission-batch.js';
import { admitQueuedEvicting } from './queue-evictions.js';

// The queue's rules are written twice: inside Postgres (admit_queued, migrations/00042) and in
// memory (queue-pass.ts, through the transaction that gives copies up). Twin fleets, seeded alike
// at random (caps, live, warm and paused copies, a line of 80 viewers), are passed one by each
// until nobody more gets in; every copy must end the same in both.

const sql = createSql(loadConfig(testRunnerEnv()).DATABASE_URL, { max: 10 });
afterAll(() => sql.end({ timeout: 2 }));

/** mulberry32: the same scenario from the same seed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Copy = { w: number; b: number; state: 'queued' | 'running' | 'warm' | 'paused'; here: boolean };

function scenario(seed: number) {
  const r = random(seed);
  const int = (n: number) => Math.floor(r() * n);
  const plans = Array.from({ length: 10 }, () => (['solo', 'pro', 'studio'] as PlanName[])[int(3)]);
  const copies: Copy[] = [];
  for (const w of plans.keys()) {
    for (let k = int(5); k > 0; k--) copies.push({ w, b: int(2), state: 'running', here: r() < 0.6 });
    if (r() < 0.25) copies.push({ w, b: int(2), state: 'warm', here: true });
    if (r() < 0.15) copies.push({ w, b: int(2), state: 'paused', here: r() < 0.5 });
  }
  for (let i = 0; i < 80; i++) copies.push({ w: int(10), b: int(2), state: 'queued', here: true });
  return { plans, copies, hostCapacity: 10 + int(30) };
}

/** One fleet of the scenario: this host, another, and each copy's id in the scenario's order. */
async function seed(s: ReturnType<typeof scenario>, base: Date) {
  const host = { runnerId: `tw-${randomUUID().slice(0, 8)}`, hostCapacity: s.hostCapacity };
  const elsewhere = `tw-${randomUUID().slice(0, 8)}`;
  const rooms = [];
  for (const plan of s.plans) {
    const workspaceId = await seedWorkspace(sql, plan);
    const builds = [];
    for (let b = 0; b < 2; b++) {
      const projectId = randomUUID();
      await sql`insert into projects (id, workspace_id, slug, name) values (${projectId}, ${workspaceId}, ${`tw-${projectId.slice(0, 13)}`}, 'Twin')`;
      builds.push({ workspaceId, projectId, buildId: randomUUID() });
    }
    rooms.push(builds);
  }
  const ids = s.copies.map(() => randomUUID());
  for (const [i, c] of s.copies.entries()) {
    const room = rooms[c.w][c.b];
    const on = c.state === 'queued' ? null : sql`now()`;
    await sql`insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, admitted_at, ready_at, paused_at, asked_at)
      values (${ids[i]}, ${c.here ? host.runnerId : elsewhere}, ${room.workspaceId}, ${room.projectId}, ${room.buildId},
              ${c.state === 'warm' ? null : randomUUID()}, ${c.state === 'warm' ? 'warm' : 'viewer'}, ${c.state}, ${on}, ${on},
              ${c.state === 'paused' ? sql`now()` : null}, ${base}::timestamptz + ${i} * interval '1 millisecond')`;
  }
  return { host, ids };
}

async function endStates(ids: string[]) {
  const rows = await sql<{ id: string; state: string; endReason: string | null }[]>`
    select id, state, end_reason from runner_copies where id = any(${ids}::uuid[])`;
  const byId = new Map(rows.map((c) => [c.id, c.endReason ? `${c.state}/${c.endReason}` : c.state]));
  return ids.map((id) => byId.get(id));
}

describe('the queue passed in Postgres and in memory', () => {
  it('ends every copy the same in twin fleets', async () => {
    const base = new Date(Date.now() - 3_600_000);
    for (let k = 1; k <= 12; k++) {
      const s = scenario(k);
      const [inMemory, inPostgres] = [await seed(s, base), await seed(s, base)];
      // In memory: every head of the fleet through the transaction, round again while anyone gets in.
      for (let round = 0; round < 20; round++) {
        const heads = await sql<{ workspaceId: string }[]>`
          select workspace_id from (select distinct on (workspace_id) workspace_id, runner_id, asked_at from runner_copies
            where state = 'queued' order by workspace_id, asked_at, id) h
          where runner_id = ${inMemory.host.runnerId} order by asked_at`;
        if (
          !heads.length ||
          !(
            await admitQueuedEvicting(
              sql,
              inMemory.host,
              heads.map((h) => h.workspaceId),
            )
          ).out.length
        )
          break;
      }
      for (let round = 0; round < 20; round++) if (!(await admitQueuedOnce(sql, inPostgres.host, [], () => {})).let) break;
      const [a, b] = [await endStates(inMemory.ids), await endStates(inPostgres.ids)];
      expect({ scenario: k, states: b }).toEqual({ scenario: k, states: a });
    }
  });
});
