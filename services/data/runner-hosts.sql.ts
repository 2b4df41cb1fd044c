import type { Db, Sql } from '../core/infra/db.js';
import type { PictureHost } from '@demo-rooms/contract/runner';
import { liveStates } from './copies.sql.js';

// The runner hosts of a fleet (migration 00030, docs/runner.md "Several runner hosts"): their
// registration and beat, the picture placement reads (fleet-placement.ts), and the one-time ending of a lost
// host's copies. Times are compared in the database's clock, never a process's.

const live = liveStates as readonly string[];

export interface RunnerHost {
  id: string;
  fleet: string;
  apiUrl: string;
  copyOrigin: string | null;
  slots: number;
  seenAt: Date;
  lostAt: Date | null;
}

export type HostRegistration = Pick<RunnerHost, 'id' | 'fleet' | 'apiUrl' | 'copyOrigin' | 'slots'>;

/** Registers the host or beats (every second: host-beat.ts): its addresses and slots as configured now, seen now, not lost. */
export async function beat(sql: Sql, h: HostRegistration): Promise<void> {
  await sql`
    insert into runner_hosts (id, fleet, api_url, copy_origin, slots)
    values (${h.id}, ${h.fleet}, ${h.apiUrl}, ${h.copyOrigin}, ${h.slots})
    on conflict (id) do update set fleet = excluded.fleet, api_url = excluded.api_url, copy_origin = excluded.copy_origin,
      slots = excluded.slots, seen_at = clock_timestamp(), lost_at = null,
      started_at = case when runner_hosts.lost_at is null then runner_hosts.started_at else clock_timestamp() end`;
}

/**
 * The ids of the fleet's hosts that beat within `lostS` seconds, without counting each host's
 * copies (a queue pass asks this for its peers, up to a few times a second a host).
 */
export async function liveHostIds(sql: Sql, fleet: string, lostS: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from runner_hosts where fleet = ${fleet} and seen_at > now() - make_interval(secs => ${lostS}) order by id`;
  return rows.map((r) => r.id);
}

/** Every fleet's hosts that beat within `lostS` seconds (the operator's commands that ask each host). */
export function hostsSeenWithin(sql: Sql, lostS: number) {
  return sql<Pick<RunnerHost, 'id' | 'fleet' | 'apiUrl'>[]>`
    select id, fleet, api_url from runner_hosts where seen_at > now() - make_interval(secs => ${lostS}) order by fleet, id`;
}

/**
 * What placement needs of the fleet's live hosts (fleet-placement.ts): free slots, and the pool's
 * copies by build, ready (`warm`) or starting for no viewer yet (`warming`). One read for the
 * whole fleet, which the room repeats at most once a second.
 */
export async function fleetPicture(sql: Sql, fleet: string, lostS: number): Promise<PictureHost[]> {
  const rows = await sql<{ id: string; apiUrl: string; free: number; pool: { buildId: string; warm: boolean; n: number }[] }[]>`
    select h.id, h.api_url,
      h.slots - (select count(*)::int from runner_copies c where c.runner_id = h.id and c.state = any(${live as string[]})) as free,
      coalesce((
        select json_agg(json_build_object('buildId', p.build_id, 'warm', p.warm, 'n', p.n))
        from (select c.build_id, c.state = 'warm' as warm, count(*)::int as n from runner_copies c
              where c.runner_id = h.id and c.session_id is null and c.state in ('warm', 'creating', 'starting')
              group by 1, 2) p), '[]') as pool
    from runner_hosts h
    where h.fleet = ${fleet} and h.seen_at > now() - make_interval(secs => ${lostS})`;
  return rows.map((r) => {
    const warm: Record<string, number> = {};
    const warming: Record<string, number> = {};
    for (const p of r.pool) (p.warm ? warm : warming)[p.buildId] = p.n;
    return { id: r.id, apiUrl: r.apiUrl, free: r.free, warm, warming };
  });
}

/** The host of the session's copy: the one not ended, else its latest one; undefined when it never had one. */
export async function hostOfSession(sql: Sql, sessionId: string): Promise<string | undefined> {
  return (await hostsOfSessions(sql, [sessionId])).get(sessionId);
}

/** hostOfSession for many sessions in one read: each session's host, sessions that never had a copy left out. */
export async function hostsOfSessions(sql: Sql, sessionIds: string[]): Promise<Map<string, string>> {
  const rows = await sql<{ sessionId: string; runnerId: string }[]>`
    select distinct on (session_id) session_id, runner_id from runner_copies
    where session_id = any(${sessionIds}::uuid[])
    order by session_id, (state <> 'ended') desc, asked_at desc`;
  return new Map(rows.map((r) => [r.sessionId, r.runnerId]));
}

/** The copy origin (its data plane, as the room reaches it) of the host that holds a copy; null when that host has none. */
export async function copyOriginOfCopy(sql: Sql, copyId: string): Promise<string | null> {
  const [h] = await sql<{ copyOrigin: string | null }[]>`
    select h.copy_origin from runner_copies c join runner_hosts h on h.id = c.runner_id where c.id = ${copyId}`;
  return h?.copyOrigin ?? null;
}

/** A host of the fleet found lost and settled by `settleLostHost`. */
export interface LostHost {
  id: string;
  seenAt: Date;
  ended: number;
  /** Each copy ended, with the seq of the `stop` written for it: the survivor dates it at the engine's finish when its engine can see the unit. */
  copies: { copyId: string; seq: number }[];
  movedQueue: number;
}

/**
 * Settles every host of the fleet that has not beaten for `lostS` seconds and is not yet marked,
 * once, in one transaction under the fleet's lock (two survivors never settle the same host):
 * its copies not ended end `host-lost` with one `stop` event each, dated at the host's last beat
 * (or the copy's own latest event if later: an interval never runs backwards), so usage stops
 * where the host went silent, until the survivor's engine says when each really stopped
 * (runner/loops/lost-host-runs.ts); its queued viewers move to `survivor` in their order; and it is
 * marked lost. A transition's seq bump and `unique (copy_id, seq)` keep a racing runner's own
 * write from counting twice.
 */
export async function settleLostHosts(sql: Sql, fleet: string, survivor: string, lostS: number): Promise<LostHost[]> {
  return sql.begin(async (tx: Db) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`runner.fleet:${fleet}`}))`;
    const hosts = await tx<{ id: string; seenAt: Date }[]>`
      select id, seen_at from runner_hosts
      where fleet = ${fleet} and id <> ${survivor} and lost_at is null and seen_at <= now() - make_interval(secs => ${lostS})
      for update`;
    const out: LostHost[] = [];
    for (const h of hosts) {
      const ended = await tx<{ copyId: string; seq: number }[]>`
        with gone as (
          update runner_copies c set state = 'ended', seq = seq + 1, end_reason = 'host-lost', ended_at = clock_timestamp()
          where c.runner_id = ${h.id} and c.state = any(${live as string[]})
          returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id
        )
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, detail)
        select g.id, g.seq, g.workspace_id, g.project_id, g.build_id, 'stop',
               greatest(${h.seenAt}::timestamptz, (select max(e.at) from copy_events e where e.copy_id = g.id)), 'host-lost'
        from gone g
        on conflict (copy_id, seq) do nothing
        returning copy_id, seq`;
      // Nobody waits on a queued viewer's container: the place in the queue moves to a survivor.
      const moved = await tx`update runner_copies set runner_id = ${survivor} where runner_id = ${h.id} and state = 'queued'`;
      await tx`update runner_hosts set lost_at = clock_timestamp() where id = ${h.id}`;
      out.push({
        id: h.id,
        seenAt: h.seenAt,
        ended: ended.count,
        copies: ended.map((e) => ({ copyId: e.copyId, seq: e.seq })),
        movedQueue: moved.count,
      });
    }
    return out;
  }) as Promise<LostHost[]>;
}
