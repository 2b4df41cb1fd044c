-- A host's pass over the queue in one statement (issue 43, docs/scale.md "Eighth round"), as
-- arrivals are decided by admit_arrivals (00035). The pass used to hold its workspaces' locks
-- across five round trips or so (try-locks, the queued viewers, the counts, the writes, a claim
-- each), and every arrival of those workspaces on another host waited behind it; here the locks
-- are held for the function's own work.
--
-- It takes the same locks as every admission, in the same order: the workspaces', then the
-- host's. The workspaces' are try-locks (a workspace another host is letting in right now is
-- left to it), so they never wait and cannot close a cycle with admit_arrivals, which waits for
-- its workspaces in byte order before the host.
--
-- p_peers: the fleet's other live hosts (a queued viewer holds nothing on a host, so whichever
-- host has room lets them in). p_caps: { planName: copies at once }, from
-- services/core/rules/plans.ts, so the plan's rule stays there; a workspace without a plan is held
-- to 'free'.
--
-- The decisions are those of runner/copies/queue-pass.ts: for each workspace in turn (oldest head
-- first), its viewers in their order; a viewer whose build has a healthy warm copy on this host
-- takes it, else a slot while the workspace and the host have one; a head that cannot go stops
-- its workspace, a full host stops everything. Giving a warm or paused copy up for a viewer is
-- left to the caller (the one case that is rare, and goes copy by copy): the pass stops at such a
-- workspace and names it and the workspaces after it, for the caller's transaction to go on with.
--
-- Rows:
--   admitted      copy_id is a queued viewer's copy, now `creating` on this host (as
--                 admitQueuedCopies writes it: one clock reading, a microsecond a place);
--   claimed       copy_id is a warm copy, now the viewer's (as claimCopy writes it, its `claim`
--                 event included); the viewer's queued record ended `handed-over`;
--   evict-needed  the workspace stopped at a cap where a warm or paused copy could be given up;
--   not-passed    a workspace after it, not looked at (in the pass's order, after evict-needed);
--   skipped       another host holds the workspace's lock.
create or replace function admit_queued(p_runner text, p_host_cap int, p_peers text[], p_caps jsonb)
returns table (kind text, copy_id uuid, workspace uuid)
language plpgsql as $$
#variable_conflict use_column
declare
  h record;
  taken uuid[] := '{}';
  caps jsonb;
  per_ws int;
  queued jsonb;
  wss jsonb;
  host_live int;
  host_spare int;
  warm jsonb;
  q jsonb;
  ws text;
  cap int;
  w jsonb;
  ws_live int;
  ws_spare int;
  claim text;
  need_ws boolean;
  need_host boolean;
  blocked jsonb := '{}';
  admits uuid[] := '{}';
  moved record;
begin
  -- The first waiting viewer of each workspace whose head is on this host or a live peer, oldest first.
  for h in
    select * from (
      select distinct on (c.workspace_id) c.workspace_id, c.runner_id, c.asked_at from runner_copies c
      where c.state = 'queued' order by c.workspace_id, c.asked_at, c.id
    ) heads where heads.runner_id = any(p_runner || p_peers) order by heads.asked_at
  loop
    if pg_try_advisory_xact_lock(hashtext('runner.workspace:' || h.workspace_id::text)) then
      taken := taken || h.workspace_id;
    else
      kind := 'skipped';
      copy_id := null;
      workspace := h.workspace_id;
      return next;
    end if;
  end loop;
  if cardinality(taken) = 0 then
    return;
  end if;
  perform pg_advisory_xact_lock(hashtext('runner.host:' || p_runner));

  -- Everything below reads what was committed before the locks were taken (read committed: a
  -- fresh snapshot per statement), so no slot counted here can be taken by anyone else.
  select coalesce(jsonb_object_agg(x.id::text, coalesce((p_caps->>coalesce(x.plan, 'free'))::int, 0)), '{}') into caps
    from workspaces x where x.id = any(taken);
  -- No workspace lets in more than its cap nor this host more than its capacity in one pass.
  select greatest(1, least(p_host_cap, coalesce(max(v::int), 0))) into per_ws from jsonb_each_text(caps) c(k, v);
  select coalesce(jsonb_agg(jsonb_build_object('id', l.id, 'w', l.workspace_id, 'b', l.build_id, 's', l.session_id)
                            order by t.n, l.asked_at, l.id), '[]') into queued
    from unnest(taken) with ordinality as t(w, n)
    cross join lateral (
      select c.id, c.workspace_id, c.build_id, c.session_id, c.asked_at from runner_copies c
      where c.workspace_id = t.w and c.state = 'queued' order by c.asked_at, c.id limit per_ws
    ) l;
  select coalesce(jsonb_object_agg(c.workspace_id::text, jsonb_build_array(c.n, c.spare)), '{}') into wss from (
    select workspace_id,
           count(*) filter (where state in ('creating', 'starting', 'warm', 'running', 'paused')) as n,
           count(*) filter (where state in ('warm', 'paused')) as spare
    from runner_copies where workspace_id = any(taken) and state <> 'ended'
    group by workspace_id) c;
  select count(*) filter (where state in ('creating', 'starting', 'warm', 'running', 'paused')),
         count(*) filter (where state in ('warm', 'paused'))
    into host_live, host_spare
    from runner_copies where runner_id = p_runner and state <> 'ended';
  -- This host's healthy unclaimed copies of the builds waited for, oldest first, locked for this pass.
  select coalesce(jsonb_object_agg(u.build_id::text, u.ids), '{}') into warm from (
    select build_id, jsonb_agg(id::text order by asked_at) as ids from (
      select c.id, c.build_id, c.asked_at from runner_copies c
      where c.runner_id = p_runner and c.session_id is null and c.state = 'warm'
        and c.build_id = any(array(select distinct (e->>'b')::uuid from jsonb_array_elements(queued) e))
      for update skip locked) l
    group by build_id) u;

  for q in select value from jsonb_array_elements(queued) loop
    ws := q->>'w';
    continue when blocked ? ws;
    w := coalesce(wss->ws, '[0, 0]');
    ws_live := (w->>0)::int;
    ws_spare := (w->>1)::int;
    cap := coalesce((caps->>ws)::int, 0);
    claim := warm->(q->>'b')->>0;

    if claim is not null then
      -- A warm copy is live already: handing it over moves no live count. The queued record ends
      -- first (one copy not ended per session), then the copy becomes the viewer's.
      update runner_copies c set state = 'ended', seq = c.seq + 1, end_reason = 'handed-over', ended_at = clock_timestamp()
      where c.id = (q->>'id')::uuid and c.state = 'queued';
      -- A viewer gone meanwhile (their record no longer queued) leaves the copy to the next one.
      continue when not found;
      warm := jsonb_set(warm, array[q->>'b'], (warm->(q->>'b')) - 0);
      update runner_copies c set state = 'running', seq = c.seq + 1, session_id = (q->>'s')::uuid,
        claimed_at = clock_timestamp(), active_at = clock_timestamp(), seen_at = clock_timestamp()
      where c.id = claim::uuid and c.state = 'warm'
      returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id into moved;
      -- Locked for this pass, so it is still warm.
      if found then
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at)
        values (moved.id, moved.seq, moved.workspace_id, moved.project_id, moved.build_id, 'claim', clock_timestamp())
        on conflict (copy_id, seq) do nothing;
        -- No longer a copy to give up (queue-pass.ts counted it still, and tried in vain).
        wss := wss || jsonb_build_object(ws, jsonb_build_array(ws_live, ws_spare - 1));
        host_spare := host_spare - 1;
        kind := 'claimed';
        copy_id := moved.id;
        workspace := moved.workspace_id;
        return next;
      end if;
      continue;
    end if;

    if ws_live < cap and host_live < p_host_cap then
      admits := admits || (q->>'id')::uuid;
      wss := wss || jsonb_build_object(ws, jsonb_build_array(ws_live + 1, ws_spare));
      host_live := host_live + 1;
      continue;
    end if;

    -- The head cannot go: the workspace stops here (first come, first served).
    blocked := blocked || jsonb_build_object(ws, true);
    need_ws := ws_live >= cap;
    need_host := host_live >= p_host_cap;
    if ws_live <= cap and host_live <= p_host_cap and (not need_ws or ws_spare > 0) and (not need_host or host_spare > 0) then
      -- Giving a copy up is left to the caller, and the pass stops here: what it leaves decides
      -- whether the host has room for the workspaces after this one, so they go on after it, in
      -- their order, exactly as one pass would take them.
      return query
        select case when t.n = s.n then 'evict-needed' else 'not-passed' end, null::uuid, t.w
        from unnest(taken) with ordinality as t(w, n), (select array_position(taken, ws::uuid) as n) s
        where t.n >= s.n order by t.n;
      exit;
    end if;
    -- A full host lets nobody else in either.
    exit when need_host;
  end loop;

  -- The slots, in one statement, in the queue's order.
  return query
    with clock as (select clock_timestamp() as t),
    picked as (select p.id, p.n from unnest(admits) with ordinality as p(id, n)),
    let_in as (
      update runner_copies c set state = 'creating', seq = c.seq + 1, runner_id = p_runner,
        admitted_at = clock.t + picked.n * interval '1 microsecond', active_at = clock.t
      from picked, clock
      where c.id = picked.id and c.state = 'queued'
      returning c.id, c.workspace_id, picked.n
    )
    select 'admitted'::text, l.id, l.workspace_id from let_in l order by l.n;
end;
$$;
