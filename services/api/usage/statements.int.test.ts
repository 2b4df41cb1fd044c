import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsageStatement, WebhookPayload, webhookPayload } from '@demo-rooms/contract';
import { containerUsage, containerUsageByProject } from '../../data/container-usage.sql.js';
import { toEvent, type EventRow } from '../../data/product-events.sql.js';
import { viewerHoursThisMonth } from '../../data/visits.sql.js';
import { voidUnrun } from '../../data/usage-reconciliation.sql.js';
import { createSql } from '../../core/infra/db.js';
import { parseCsv } from '../../../test/support/csv.js';
import { statementCsv } from './statement-csv.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { pastMonth, seedCopy, seedProject, seedVisit, workspaceOf } from '../../../test/support/usage-seed.js';
import { usage } from '../../../workers/usage-rollup/usage.job.js';
import type { WorkerDeps } from '../../../workers/worker-deps.js';

// Issue 46, statements: the operation's numbers are containerUsage's for the same month (one
// computation), a workspace sees only its own copies, the CSV is the JSON line for line, and a
// closed month never changes: a later correction shows in the next month, naming the copy.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const h = 3600_000;
const rollUp = (month: string) =>
  usage(platform.deps as unknown as WorkerDeps, { data: { month }, updateProgress: async () => {} } as unknown as Job);

async function builder() {
  const person = await platform.person({ plan: 'pro' });
  return { ...person, workspaceId: await workspaceOf(platform.deps.sql, person.email) };
}

/** The CSV export, parsed (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
async function csvOf(token: string, month: string) {
  const res = await fetch(`${platform.baseUrl}/api/usage/statements/${month}.csv`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  return parseCsv(await res.text());
}

/** The JSON statement's lines as the CSV writes them. */
const asCsv = (s: UsageStatement) =>
  s.lines.map((l) => [
    l.projectId,
    s.projects.find((p) => p.projectId === l.projectId)?.name ?? '',
    l.copyId,
    l.kind,
    l.correctsMonth ?? '',
    l.startedAt,
    l.endedAt ?? '',
    String(l.seconds),
    l.eventSeqs.join(' '),
  ]);

describe('usageStatement', () => {
  it("equals containerUsage's numbers for the month, per project and per copy, with viewer-hours and spend from the same numbers", async () => {
    const { sql } = platform.deps;
    const a = await builder();
    const b = await builder();
    const m = pastMonth(7, 2);
    const web = await seedProject(sql, a.workspaceId, 'Web demo');
    const api = await seedProject(sql, a.workspaceId, '=HYPERLINK("x"), "quoted"');
    // 2 h running, 1 h paused (free), 1 h running: 3 h; events 1 start, 2 pause, 3 resume, 4 stop.
    const c1 = await seedCopy(sql, a.workspaceId, web, [
      ['start', m.at(1 * h)],
      ['pause', m.at(3 * h)],
      ['resume', m.at(4 * h)],
      ['stop', m.at(5 * h)],
    ]);
    // Started before the month: only its hour inside counts.
    const c2 = await seedCopy(sql, a.workspaceId, api, [
      ['start', new Date(m.start.getTime() - 2 * h)],
      ['ready', new Date(m.start.getTime() - 2 * h + 1000)],
      ['stop', m.at(1 * h)],
    ]);
    // A failed start: 30.5 s.
    const c3 = await seedCopy(sql, a.workspaceId, api, [
      ['start', m.at(6 * h)],
      ['fail', m.at(6 * h + 30_500)],
    ]);
    const foreign = await seedCopy(sql, b.workspaceId, await seedProject(sql, b.workspaceId, 'Theirs'), [
      ['start', m.at(2 * h)],
      ['stop', m.at(9 * h)],
    ]);
    await seedVisit(sql, a.workspaceId, web, m.at(1 * h), m.at(2.5 * h));
    await seedVisit(sql, a.workspaceId, api, m.at(7 * h), m.at(7.25 * h));

    const s = await a.client.call('usageStatement', { params: { month: m.name } });
    const u = await containerUsage(sql, a.workspaceId, m.start);
    expect(s.containerHours).toBe(u.containerHours);
    expect(s.containerHours).toBe(4.0085);
    expect(s.containerSeconds).toBe(3 * 3600 + 3600 + 30.5);
    expect(s.spendUsd).toBe(Math.round(u.containerHours * platform.deps.config.RUNNER_COPY_HOUR_USD * 10_000) / 10_000);
    expect(s.viewerHours).toBeCloseTo(await viewerHoursThisMonth(sql, a.workspaceId, new Date(m.end.getTime() - 1)), 4);
    expect(s.viewerHours).toBe(1.75);
    expect(s).toMatchObject({ month: m.name, closed: false, closedAt: null, correctionSeconds: 0, lineCount: 3, linesCut: false });
    const byProject = await containerUsageByProject(sql, a.workspaceId, m.start);
    for (const p of byProject) expect(s.projects.find((q) => q.projectId === p.projectId)?.containerHours).toBe(p.containerHours);
    expect(s.projects.map((p) => [p.name, p.copies, p.containerSeconds, p.viewerHours])).toEqual([
      ['Web demo', 1, 10_800, 1.5],
      ['=HYPERLINK("x"), "quoted"', 2, 3630.5, 0.25],
    ]);
    expect(s.lines).toEqual([
      {
        kind: 'use',
        projectId: api,
        copyId: c2,
        startedAt: m.start.toISOString(),
        endedAt: m.at(h).toISOString(),
        seconds: 3600,
        correctsMonth: null,
        eventSeqs: [1, 3],
      },
      {
        kind: 'use',
        projectId: web,
        copyId: c1,
        startedAt: m.at(h).toISOString(),
        endedAt: m.at(5 * h).toISOString(),
        seconds: 10_800,
        correctsMonth: null,
        eventSeqs: [1, 2, 3, 4],
      },
      {
        kind: 'use',
        projectId: api,
        copyId: c3,
        startedAt: m.at(6 * h).toISOString(),
        endedAt: m.at(6 * h + 30_500).toISOString(),
        seconds: 30.5,
        correctsMonth: null,
        eventSeqs: [1, 2],
      },
    ]);
    // Each workspace sees its own copies only.
    expect(s.lines.map((l) => l.copyId)).not.toContain(foreign);
    const theirs = await b.client.call('usageStatement', { params: { month: m.name } });
    expect(theirs.lines.map((l) => l.copyId)).toEqual([foreign]);
    expect(theirs.containerSeconds).toBe(7 * 3600);

    // The CSV is the same lines, the formula-like name kept as text, the quotes doubled.
    const rows = await csvOf(a.token, m.name);
    expect(rows[0]).toEqual([
      'project_id',
      'project',
      'copy_id',
      'kind',
      'corrects_month',
      'started_at',
      'ended_at',
      'seconds',
      'event_seqs',
    ]);
    expect(rows.slice(1)).toEqual(asCsv(s).map((r) => r.map((f) => (f.startsWith('=') ? `'${f}` : f))));
    const raw = await (
      await fetch(`${platform.baseUrl}/api/usage/statements/${m.name}.csv`, { headers: { authorization: `Bearer ${a.token}` } })
    ).text();
    expect(raw).toContain(`"'=HYPERLINK(""x""), ""quoted"""`);
    expect((await csvOf(b.token, m.name)).slice(1).map((r) => r[2])).toEqual([foreign]);
  });

  it('lists at most 1,000 lines in JSON with every line in the totals, and every line in the CSV', async () => {
    const { sql } = platform.deps;
    const a = await builder();
    const m = pastMonth(7, 3);
    const project = await seedProject(sql, a.workspaceId, 'Busy');
    // 1,001 copies of i + 1 seconds each, written in two statements.
    await sql`
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, asked_at, ended_at, seq)
      select gen_random_uuid(), 'statement-test', ${a.workspaceId}, ${project}, gen_random_uuid(), 'viewer', 'ended',
             ${m.start}::timestamptz + make_interval(mins => i), ${m.start}::timestamptz + make_interval(mins => i, secs => i + 1), 2
      from generate_series(0, 1000) i`;
    await sql`
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at)
      select c.id, e.seq, c.workspace_id, c.project_id, c.build_id, e.kind, case e.seq when 1 then c.asked_at else c.ended_at end
      from runner_copies c, (values (1, 'start'), (2, 'stop')) e(seq, kind)
      where c.workspace_id = ${a.workspaceId}`;
    const s = await a.client.call('usageStatement', { params: { month: m.name } });
    expect(s).toMatchObject({ lineCount: 1001, linesCut: true, containerSeconds: (1001 * 1002) / 2 });
    expect(s.lines).toHaveLength(1000);
    expect(s.containerHours).toBe((await containerUsage(sql, a.workspaceId, m.start)).containerHours);
    const rows = (await csvOf(a.token, m.name)).slice(1);
    expect(rows).toHaveLength(1001);
    expect(rows.slice(0, 1000)).toEqual(asCsv(s));
    expect(rows.reduce((sum, r) => sum + Number(r[7]), 0)).toBe(s.containerSeconds);

    // A client that stops reading holds the cursor's connection until the deadline cuts it.
    const one = createSql(platform.deps.config.DATABASE_URL, { max: 1 });
    try {
      const stalled = await statementCsv(one, a.workspaceId, m, 300);
      const closed = new Promise((resolve) => stalled.on('close', resolve));
      stalled.on('error', () => {});
      stalled.read(); // starts the records: the cursor takes the pool's one connection, then nobody reads
      await closed;
      expect(stalled.destroyed).toBe(true);
      expect(await one`select 1 as ok`).toEqual([{ ok: 1 }]);
    } finally {
      await one.end({ timeout: 2 });
    }
  });

  it('refuses a month that is not YYYY-MM (400 naming it) and one that has not begun (422 future)', async () => {
    const { token } = await builder();
    for (const month of ['2026-13', '2026-1', '0050-01', 'latest']) {
      const r = await platform.fetch(`/api/usage/statements/${month}`, { token });
      expect(r.status, month).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid', issues: [{ path: 'month' }] });
    }
    const next = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    expect(await platform.fetch(`/api/usage/statements/${next}`, { token })).toMatchObject({ status: 422, body: { reason: 'future' } });
    expect(await platform.fetch(`/api/usage/statements/${next}.csv`, { token })).toMatchObject({ status: 422, body: { reason: 'future' } });
    expect((await platform.fetch(`/api/usage/statements/${new Date().toISOString().slice(0, 7)}`, { token })).status).toBe(200);
  });

  it('never changes a closed month: a later correction is listed in the next month with the copy it corrects, once', async () => {
    const { sql } = platform.deps;
    const a = await builder();
    const c = pastMonth(7, 5);
    const d = pastMonth(7, 6);
    const e = pastMonth(7, 7);
    const project = await seedProject(sql, a.workspaceId, 'Corrected');
    const lostHost = await seedCopy(sql, a.workspaceId, project, [
      ['start', c.at(10 * h)],
      ['stop', c.at(14 * h)],
    ]);
    await rollUp(c.name);
    const closed = await a.client.call('usageStatement', { params: { month: c.name } });
    expect(closed).toMatchObject({ closed: true, containerSeconds: 4 * 3600, lineCount: 1 });
    const [row] = await sql<{ containerHours: string }[]>`
      select container_hours from usage_months where workspace_id = ${a.workspaceId} and month = ${c.start}`;
    expect(Number(row.containerHours)).toBe(closed.containerHours);

    // Later: the lost host's stop was really at its last beat, 1 h earlier; and a copy the
    // records did not own is accounted to the workspace (issue 46, item 1's corrections).
    await sql`update copy_events set at = ${c.at(13 * h)} where copy_id = ${lostHost} and seq = 2`;
    const orphan = await seedCopy(sql, a.workspaceId, project, [
      ['start', c.at(20 * h)],
      ['stop', c.at(20 * h + 90_000)],
    ]);
    expect(await a.client.call('usageStatement', { params: { month: c.name } })).toEqual(closed);
    const next = await a.client.call('usageStatement', { params: { month: d.name } });
    expect(next).toMatchObject({ closed: false, containerSeconds: 0, correctionSeconds: -3600 + 90, lineCount: 2 });
    expect(next.lines.map((l) => [l.kind, l.copyId, l.correctsMonth, l.seconds, l.eventSeqs])).toEqual([
      ['correction', lostHost, c.name, -3600, [1, 2]],
      ['correction', orphan, c.name, 90, [1, 2]],
    ]);
    expect(next.correctionUsd).toBe(Math.round(((-3600 + 90) / 3600) * platform.deps.config.RUNNER_COPY_HOUR_USD * 10_000) / 10_000);
    expect((await csvOf(a.token, d.name)).slice(1)).toEqual(asCsv(next));

    // Closing the next month freezes its corrections; the month after lists them no more.
    await rollUp(d.name);
    const frozen = await a.client.call('usageStatement', { params: { month: d.name } });
    expect(frozen).toMatchObject({ closed: true, correctionSeconds: -3600 + 90, lines: next.lines });
    expect(await a.client.call('usageStatement', { params: { month: e.name } })).toMatchObject({ correctionSeconds: 0, lineCount: 0 });

    // Each close told the workspace once, with the statement's numbers.
    await rollUp(c.name);
    await rollUp(d.name);
    const events = await sql<EventRow[]>`
      select id::text as id, workspace_id, project_id, link_id, kind, occurred_at, viewer_name, viewer_company, data
      from product_events where workspace_id = ${a.workspaceId} order by id`;
    expect(events.map((ev) => [ev.kind, (ev.data as { month: string }).month])).toEqual([
      ['usage.month_closed', c.name],
      ['usage.month_closed', d.name],
    ]);
    const told = toEvent(events[0]!);
    expect(told).toMatchObject({
      projectId: null,
      linkId: null,
      data: { containerSeconds: 4 * 3600, copies: 1, spendUsd: closed.spendUsd },
    });
    expect(WebhookPayload.parse(webhookPayload(told))).toMatchObject({ type: 'usage.month_closed', data: { kind: 'usage.month_closed' } });
  });

  it('lists a billed copy the engine never ran, voided by the usage reconciliation after its month closed, as a correction of that month', async () => {
    const { sql } = platform.deps;
    const a = await builder();
    const c = pastMonth(7, 10);
    const d = pastMonth(7, 11);
    const project = await seedProject(sql, a.workspaceId, 'Never ran');
    const ghost = await seedCopy(sql, a.workspaceId, project, [
      ['start', c.at(2 * h)],
      ['stop', c.at(3 * h)],
    ]);
    await rollUp(c.name);
    const closed = await a.client.call('usageStatement', { params: { month: c.name } });
    expect(closed).toMatchObject({ closed: true, containerSeconds: 3600, lineCount: 1 });

    // The reconciliation finds the engine never ran it (runner/loops/usage-reconcile.ts).
    expect(await voidUnrun(sql, ghost, 'the engine never ran it')).toBe(true);
    expect(await voidUnrun(sql, ghost, 'the engine never ran it')).toBe(false);
    expect(await a.client.call('usageStatement', { params: { month: c.name } })).toEqual(closed);
    const next = await a.client.call('usageStatement', { params: { month: d.name } });
    expect(next).toMatchObject({ closed: false, containerSeconds: 0, correctionSeconds: -3600, lineCount: 1 });
    // Traced to the event that voided it (seq 3, after its start and stop).
    expect(next.lines.map((l) => [l.kind, l.copyId, l.correctsMonth, l.seconds, l.eventSeqs])).toEqual([
      ['correction', ghost, c.name, -3600, [3]],
    ]);
  });
});
