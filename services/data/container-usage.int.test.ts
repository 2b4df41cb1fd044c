import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../core/infra/db.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { containerUsage, monthOf } from './container-usage.sql.js';

let platform: Platform;
let sql: Sql;
beforeAll(async () => {
  platform = await startPlatform();
  sql = platform.deps.sql;
});
afterAll(async () => {
  await platform.close();
});

type Ev = [kind: string, at: Date, coldStartMs?: number];

/** A copy record and its events, as the runner writes them. */
async function copyWith(workspaceId: string, projectId: string, origin: 'viewer' | 'warm', events: Ev[]) {
  const id = randomUUID();
  const ended = ['stop', 'fail'].includes(events.at(-1)![0]);
  await sql`
    insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, asked_at, ended_at, seq)
    values (${id}, 'usage-test', ${workspaceId}, ${projectId}, ${randomUUID()}, ${origin}, ${ended ? 'ended' : 'running'}, ${events[0][1]}, ${ended ? events.at(-1)![1] : null}, ${events.length})`;
  for (const [i, [kind, at, cold]] of events.entries()) {
    await sql`
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, cold_start_ms)
      values (${id}, ${i + 1}, ${workspaceId}, ${projectId}, ${randomUUID()}, ${kind}, ${at}, ${cold ?? null})`;
  }
}

async function workspaceWithProject(workspaceId?: string) {
  const ws =
    workspaceId ??
    (await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('usage', 'team', 'pro') returning id`)[0].id;
  const [p] = await sql<
    { id: string }[]
  >`insert into projects (workspace_id, slug, name) values (${ws}, ${`u-${randomUUID().slice(0, 12)}`}, 'U') returning id`;
  return { workspaceId: ws, projectId: p.id };
}

const h = 3600_000;

describe('ContainerUsage from copy events', () => {
  it('counts runs, container-hours (clipped to the month, paused time free), failures, held-back viewers and the median cold start', async () => {
    const { workspaceId, projectId } = await workspaceWithProject();
    const now = new Date();
    const { start, end } = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)));
    const at = (ms: number) => new Date(start.getTime() + ms);
    const S = 0;
    const E = end.getTime() - start.getTime();
    // A viewer held back, then 2 h running, 1 h paused (free), 1 h running: 3 h.
    await copyWith(workspaceId, projectId, 'viewer', [
      ['queued', at(S + 1 * h)],
      ['start', at(S + 1 * h)],
      ['ready', at(S + 1 * h), 900],
      ['pause', at(S + 3 * h)],
      ['resume', at(S + 4 * h)],
      ['stop', at(S + 5 * h)],
    ]);
    // A warm copy started before the month, handed out, stopped an hour into it: 1 h, no run this month.
    await copyWith(workspaceId, projectId, 'warm', [
      ['start', at(S - 2 * h)],
      ['ready', at(S - 2 * h)],
      ['claim', at(S + 0.5 * h)],
      ['stop', at(S + 1 * h)],
    ]);
    // A failed start: 30 s of container time, one failure.
    await copyWith(workspaceId, projectId, 'viewer', [
      ['start', at(S + 6 * h)],
      ['fail', at(S + 6 * h + 30_000)],
    ]);
    // Still running at the month's end: counted up to the end, 1 h.
    await copyWith(workspaceId, projectId, 'viewer', [
      ['start', at(E - 1 * h)],
      ['ready', at(E - 1 * h), 300],
    ]);
    const usage = await containerUsage(sql, workspaceId, start);
    expect(usage).toEqual({
      month: start.toISOString().slice(0, 7),
      runs: 2,
      containerHours: 5.0083,
      failedStarts: 1,
      crashes: 0,
      heldBack: 1,
      medianColdStartMs: 600,
    });
  });

  it('answers GET /api/usage/containers for the active workspace and the current UTC month', async () => {
    const { client, email } = await platform.person({ plan: 'pro' });
    const [{ workspaceId }] = await sql<{ workspaceId: string }[]>`
      select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email}`;
    expect(await client.call('containerUsage', {})).toEqual({
      month: new Date().toISOString().slice(0, 7),
      runs: 0,
      containerHours: 0,
      failedStarts: 0,
      crashes: 0,
      heldBack: 0,
      medianColdStartMs: null,
      projects: [],
    });
    const { projectId } = await workspaceWithProject(workspaceId);
    const now = Date.now();
    await copyWith(workspaceId, projectId, 'viewer', [
      ['start', new Date(now - 36_000)],
      ['ready', new Date(now - 36_000), 800],
      ['stop', new Date(now - 18_000)],
    ]);
    const usage = await client.call('containerUsage', {});
    expect(usage).toMatchObject({ runs: 1, containerHours: 0.005, failedStarts: 0, heldBack: 0, medianColdStartMs: 800 });
  });
});

describe('containerUsage by project (issue 29, item 7)', () => {
  it("splits the month's figures by project, with each project's name, most container-hours first", async () => {
    const { client, email } = await platform.person({ plan: 'pro' });
    const [{ workspaceId }] = await sql<{ workspaceId: string }[]>`
      select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email}`;
    const shop = await workspaceWithProject(workspaceId);
    const blog = await workspaceWithProject(workspaceId);
    await sql`update projects set name = 'Shop' where id = ${shop.projectId}`;
    await sql`update projects set name = 'Blog' where id = ${blog.projectId}`;
    const quiet = await workspaceWithProject(workspaceId);
    const now = Date.now();
    await copyWith(workspaceId, shop.projectId, 'viewer', [
      ['start', new Date(now - 72_000)],
      ['ready', new Date(now - 72_000), 800],
      ['stop', new Date(now - 36_000)],
    ]);
    await copyWith(workspaceId, shop.projectId, 'warm', [
      ['start', new Date(now - 40_000)],
      ['ready', new Date(now - 40_000), 1200],
      ['stop', new Date(now - 4_000)],
    ]);
    await copyWith(workspaceId, blog.projectId, 'viewer', [
      ['start', new Date(now - 18_000)],
      ['fail', new Date(now - 9_000)],
    ]);
    const usage = await client.call('containerUsage', {});
    expect(usage).toMatchObject({ runs: 2, failedStarts: 1, medianColdStartMs: 1000 });
    expect(usage.projects).toEqual([
      {
        projectId: shop.projectId,
        name: 'Shop',
        runs: 2,
        containerHours: 0.02,
        failedStarts: 0,
        crashes: 0,
        heldBack: 0,
        medianColdStartMs: 1000,
      },
      {
        projectId: blog.projectId,
        name: 'Blog',
        runs: 0,
        containerHours: 0.0025,
        failedStarts: 1,
        crashes: 0,
        heldBack: 0,
        medianColdStartMs: null,
      },
    ]);
    expect(usage.projects.map((p) => p.projectId)).not.toContain(quiet.projectId);
    // Another workspace sees none of it.
    const other = await platform.person({ plan: 'pro' });
    expect((await other.client.call('containerUsage', {})).projects).toEqual([]);
  });
});
