import type { Db } from '../core/infra/db.js';

// The three writes of a copy's start (runner/copies/copy-starter.ts), each for a batch of copies
// in one statement (runner/copies/start-writes.ts groups them): a crowd's starts made three
// statements each. Each moves only the copies still in the state it expects (a copy withdrawn
// meanwhile is left alone, as `transition` leaves it) and bumps `seq`; the `start` and `ready`
// events are written by the same statement as their state, as `transition` writes them.

/** creating → starting with the engine's handle: the ids moved. */
export async function recordContainers(db: Db, items: { id: string; containerId: string }[]): Promise<Set<string>> {
  const rows = await db<{ id: string }[]>`
    update runner_copies c set state = 'starting', seq = c.seq + 1, container_id = i.container_id
    from unnest(${items.map((i) => i.id)}::uuid[], ${items.map((i) => i.containerId)}::text[]) as i(id, container_id)
    where c.id = i.id and c.state = 'creating'
    returning c.id`;
  return new Set(rows.map((r) => r.id));
}

/**
 * The engine runs them (still starting): `started_at` and the `start` event, dated when the engine
 * said so (`at`), not when this statement runs: under a crowd a group commit waits seconds for its
 * turn, and billing counts from the `start` event (issue 46: the stub engine's clock showed starts
 * billed 1–4 s late in a burst).
 */
export async function recordStarted(db: Db, items: { id: string; at: Date }[]): Promise<void> {
  const ids = items.map((i) => i.id);
  const ats = items.map((i) => i.at.toISOString());
  await db`
    with given as (
      select * from unnest(${ids}::uuid[], ${ats}::timestamptz[]) as g(id, at)
    ), moved as (
      update runner_copies c set state = 'starting', seq = c.seq + 1, started_at = least(g.at, clock_timestamp())
      from given g
      where c.id = g.id and c.state = 'starting'
      returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id, c.started_at
    )
    insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at)
    select id, seq, workspace_id, project_id, build_id, 'start', started_at from moved
    on conflict (copy_id, seq) do nothing`;
}

export interface ReadyCopy {
  id: string;
  host: string;
  port: number;
  coldStartMs: number | null;
  phases: Record<string, number>;
}

/**
 * Healthy: a viewer's copy runs, an unclaimed one joins the warm pool, with its address, its
 * cold start and its phases, and the `ready` event. The moved copies' sessions (null for a warm one).
 */
export async function recordReady(db: Db, items: ReadyCopy[]): Promise<Map<string, { sessionId: string | null }>> {
  const rows = await db<{ id: string; sessionId: string | null }[]>`
    with moved as (
      update runner_copies c set
        state = case when c.session_id is null then 'warm' else 'running' end, seq = c.seq + 1,
        host = i.host, port = i.port, ready_at = clock_timestamp(), active_at = clock_timestamp(),
        cold_start_ms = i.cold_start_ms, phases = i.phases
      from jsonb_to_recordset(${db.json(items.map((i) => ({ id: i.id, host: i.host, port: i.port, cold_start_ms: i.coldStartMs, phases: i.phases })))})
        as i(id uuid, host text, port int, cold_start_ms int, phases jsonb)
      where c.id = i.id and c.state = 'starting'
      returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id, c.session_id, c.cold_start_ms
    ), written as (
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, cold_start_ms)
      select id, seq, workspace_id, project_id, build_id, 'ready', cold_start_ms from moved
      on conflict (copy_id, seq) do nothing
    )
    select id, session_id from moved`;
  return new Map(rows.map((r) => [r.id, { sessionId: r.sessionId }]));
}
