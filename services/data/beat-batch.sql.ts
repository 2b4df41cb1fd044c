import type { Sql } from '../core/infra/db.js';
import { engagedSeconds } from './link-evidence.sql.js';
import { stageEventsFromMoved } from './product-events.sql.js';
import type { CoarseDevice } from './room-events.sql.js';
import { creditBeat, quietSeconds } from './visits.sql.js';

// Many viewers' beacons in one transaction (issue 15: a busy room must not load Postgres). Each
// beat is checked against its session's token, credited to its open visit by the rule of
// creditBeat, and written with the others in one statement: the visits' time, the sessions'
// last sight, the links that became engaged, and the events. A room of 5,000 viewers beating
// every 5 s costs a few statements per batch instead of seven per beacon.

export interface QueuedBeat {
  sessionId: string;
  tokenHash: Buffer;
  time: Record<string, number>;
  shown: boolean;
  hidden: boolean;
  device: CoarseDevice | null;
}

/**
 * `recorded`: written here. `alone`: not written here, for the one-by-one path to decide (the
 * token does not match, a preview, no visit open, or the session's second beat in the batch).
 */
export type BeatOutcome = 'recorded' | 'alone';

interface HeldVisit {
  sessionId: string;
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  visitId: string;
  time: string;
  elapsed: number;
}

export async function recordBeats(sql: Sql, beats: QueuedBeat[]): Promise<BeatOutcome[]> {
  const outcomes: BeatOutcome[] = beats.map(() => 'alone');
  const first = new Map<string, number>();
  beats.forEach((b, i) => {
    if (!first.has(b.sessionId)) first.set(b.sessionId, i);
  });
  const ids = [...first.keys()];
  const hashes = ids.map((id) => beats[first.get(id)!].tokenHash.toString('hex'));
  await sql.begin(async (tx) => {
    // The open visits of the sessions whose token matches, held (in id order, so two batches
    // never wait on each other in a circle) until the credits are written.
    const held = await tx<HeldVisit[]>`
      select s.id as session_id, s.workspace_id, s.project_id, s.link_id, v.id as visit_id, v.time::text as time,
             extract(epoch from now() - v.last_seen_at)::float8 as elapsed
      from unnest(${ids}::uuid[], ${hashes}::text[]) as b(id, hash)
      join room_sessions s on s.id = b.id and s.token_hash = decode(b.hash, 'hex')
      join visits v on v.id = s.visit_id
      where s.ended_at is null and s.expires_at > now() and not s.preview
        and v.ended_at is null and v.last_seen_at > now() - make_interval(secs => ${quietSeconds})
      order by v.id
      for update of v`;
    if (!held.length) return;

    const visits: { id: string; time: string }[] = [];
    const engagedLinks: string[] = [];
    const events: unknown[][] = [];
    const at = new Date().toISOString();
    for (const h of held) {
      const index = first.get(h.sessionId)!;
      const beat = beats[index];
      const { spent, credited, total } = creditBeat(h, beat.time);
      const before = total - Object.values(credited).reduce((a, b) => a + b, 0);
      visits.push({ id: h.visitId, time: JSON.stringify(spent) });
      if (h.linkId && before < engagedSeconds && total >= engagedSeconds) engagedLinks.push(h.linkId);
      const row = (kind: string, subject: string | null, seconds: number) => [
        h.workspaceId,
        h.projectId,
        h.linkId,
        h.sessionId,
        h.visitId,
        kind,
        subject,
        seconds,
        beat.device,
        at,
      ];
      if (beat.shown) events.push(row('shown', null, 0));
      for (const [subject, seconds] of Object.entries(credited)) events.push(row('time', subject, seconds));
      if (beat.hidden) events.push(row('hidden', null, 0));
      outcomes[index] = 'recorded';
    }

    // One statement for every write of the batch. Times go as text cast to jsonb: the client's
    // camel-case transform must not touch app ids.
    const column = (n: number) => events.map((e) => e[n]);
    await tx`
      with credited as (
        update visits v set time = x.time::jsonb, last_seen_at = now()
        from unnest(${visits.map((v) => v.id)}::uuid[], ${visits.map((v) => v.time)}::text[]) as x(id, time)
        where v.id = x.id
        returning v.id
      ), seen as (
        update room_sessions set last_seen_at = now() where id = any(${held.map((h) => h.sessionId)}::uuid[])
        returning id
      ), held_links as (
        select id, stage from links where id = any(${engagedLinks}::uuid[]) and stage in ('sent', 'opened') for update
      ), engaged as (
        update links l set stage = 'engaged', opened_at = coalesce(l.opened_at, now())
        from held_links old where l.id = old.id
        returning l.id, l.workspace_id, l.project_id, l.viewer_name, l.placed_stage, old.stage as from_stage, l.stage as to_stage
      ), moved as (
        -- A stage the builder placed hides the evidence's: nothing they see moved.
        select * from engaged where placed_stage is null
      ), told as (${stageEventsFromMoved(tx)}
      ), written as (
        insert into room_events (workspace_id, project_id, link_id, session_id, visit_id, kind, subject, seconds, device, at)
        select * from unnest(
          ${column(0)}::uuid[], ${column(1)}::uuid[], ${column(2)}::uuid[], ${column(3)}::uuid[], ${column(4)}::uuid[],
          ${column(5)}::text[], ${column(6)}::text[], ${column(7)}::int[], ${column(8)}::text[], ${column(9)}::timestamptz[])
        returning id
      )
      select (select count(*) from credited) as visits, (select count(*) from seen) as sessions,
             (select count(*) from engaged) as engaged, (select count(*) from written) as events`;
  });
  return outcomes;
}
