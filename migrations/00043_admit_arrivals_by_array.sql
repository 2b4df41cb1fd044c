-- admit_arrivals (00035) reading its copies by `= any(uuid[])` instead of `in (select … from
-- jsonb_array_elements(…))`, nothing else changed (issue 43, docs/scale.md "Eighth round"). The
-- planner takes a set-returning function for 100 rows, so against a table of a few thousand
-- copies it chose a sequential scan for the sessions' latest copies, and scanned every live copy
-- for the rooms' and the workspaces' counts (EXPLAIN on the test database: at 2,000 rows, and at
-- 20,000); an array's elements are counted, and the indexes on session, project and workspace
-- serve each read at any size.
create or replace function admit_arrivals(p_runner text, p_host_cap int, p_asks jsonb)
returns table (i int, kind text, reason text, copy_id uuid)
language plpgsql as $$
#variable_conflict use_column
declare
  ask jsonb;
  k int := -1;
  sess text;
  ws text;
  proj text;
  build text;
  copy_cap int;
  room_cap int;
  live_now jsonb;
  latest jsonb;
  rooms jsonb;
  wss jsonb;
  warm jsonb;
  host_live int;
  host_spare int;
  w jsonb;
  ws_live int;
  ws_queued int;
  ws_spare int;
  claim text;
  victim record;
  moved record;
  decision text;
  ask_sessions uuid[];
  ask_projects uuid[];
  ask_workspaces uuid[];
  ask_builds uuid[];
begin
  perform pg_advisory_xact_lock(hashtext('runner.workspace:' || x))
    from (select distinct (a->>'workspaceId') collate "C" as x from jsonb_array_elements(p_asks) a order by 1) s;
  perform pg_advisory_xact_lock(hashtext('runner.host:' || p_runner));
  select array_agg(distinct (a->>'sessionId')::uuid), array_agg(distinct (a->>'projectId')::uuid),
         array_agg(distinct (a->>'workspaceId')::uuid), array_agg(distinct (a->>'buildId')::uuid)
    into ask_sessions, ask_projects, ask_workspaces, ask_builds
    from jsonb_array_elements(p_asks) a;

  -- Each statement below reads what was committed before the locks were taken (read committed:
  -- a fresh snapshot per statement), so no slot counted here can be taken by anyone else.
  select coalesce(jsonb_object_agg(session_id::text, true), '{}') into live_now
    from runner_copies
    where session_id = any(ask_sessions) and state <> 'ended';
  select coalesce(jsonb_object_agg(s, id), '{}') into latest from (
    select distinct on (session_id) session_id::text as s, id::text as id from runner_copies
    where session_id = any(ask_sessions)
    order by session_id, (state <> 'ended') desc, asked_at desc) l;
  select coalesce(jsonb_object_agg(project_id::text, n), '{}') into rooms from (
    select project_id, count(*) as n from runner_copies
    where project_id = any(ask_projects)
      and session_id is not null and state <> 'ended'
    group by project_id) r;
  select coalesce(jsonb_object_agg(workspace_id::text, jsonb_build_array(n, queued, spare)), '{}') into wss from (
    select workspace_id,
           count(*) filter (where state in ('creating', 'starting', 'warm', 'running', 'paused')) as n,
           count(*) filter (where state = 'queued') as queued,
           count(*) filter (where state in ('warm', 'paused')) as spare
    from runner_copies
    where workspace_id = any(ask_workspaces) and state <> 'ended'
    group by workspace_id) c;
  select count(*) filter (where state in ('creating', 'starting', 'warm', 'running', 'paused')),
         count(*) filter (where state in ('warm', 'paused'))
    into host_live, host_spare
    from runner_copies where runner_id = p_runner and state <> 'ended';
  -- This host's unclaimed copies of the builds asked for, healthy ones first, locked for this batch.
  select coalesce(jsonb_object_agg(build_id::text, ids), '{}') into warm from (
    select build_id, jsonb_agg(id::text order by healthy desc, asked_at) as ids from (
      select id, build_id, (state = 'warm') as healthy, asked_at from runner_copies
      where runner_id = p_runner and session_id is null and state in ('creating', 'starting', 'warm')
        and build_id = any(ask_builds)
      for update skip locked) u
    group by build_id) b;

  for ask in select value from jsonb_array_elements(p_asks) loop
    k := k + 1;
    i := k;
    reason := null;
    copy_id := null;
    sess := ask->>'sessionId';
    ws := ask->>'workspaceId';
    proj := ask->>'projectId';
    build := ask->>'buildId';
    copy_cap := (ask->>'copyCap')::int;
    room_cap := (ask->>'roomCap')::int;

    if live_now ? sess or (ask ? 'after' and (latest->>sess) is distinct from (ask->>'after')) then
      kind := 'existing';
      return next;
      continue;
    end if;
    if copy_cap = 0 then
      kind := 'full';
      reason := 'plan';
      return next;
      continue;
    end if;
    if coalesce((rooms->>proj)::int, 0) >= room_cap then
      kind := 'full';
      reason := 'room';
      return next;
      continue;
    end if;

    w := coalesce(wss->ws, '[0, 0, 0]');
    ws_live := (w->>0)::int;
    ws_queued := (w->>1)::int;
    ws_spare := (w->>2)::int;
    claim := warm->build->>0;
    if ws_queued > 0 then
      decision := 'queue';
    elsif claim is not null then
      decision := 'claim';
    elsif ws_live < copy_cap and host_live < p_host_cap then
      decision := 'admit';
    elsif ws_live > copy_cap or host_live > p_host_cap then
      -- Over a cap already (lowered since): nothing given up helps.
      decision := 'queue';
    elsif (ws_live < copy_cap or ws_spare > 0) and (host_live < p_host_cap or host_spare > 0) then
      decision := 'evict';
    else
      decision := 'queue';
    end if;

    if decision = 'claim' then
      -- A warm copy is live already: taking it moves no count but the room's.
      warm := jsonb_set(warm, array[build], (warm->build) - 0);
      update runner_copies c set state = case when c.state = 'warm' then 'running' else c.state end, seq = c.seq + 1,
        session_id = sess::uuid, claimed_at = clock_timestamp(), active_at = clock_timestamp(), seen_at = clock_timestamp()
      where c.id = claim::uuid and c.session_id is null and c.state in ('creating', 'starting', 'warm')
      returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id into moved;
      if found then
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind)
        values (moved.id, moved.seq, moved.workspace_id, moved.project_id, moved.build_id, 'claim')
        on conflict (copy_id, seq) do nothing;
        kind := 'claimed';
        copy_id := moved.id;
      else
        -- Locked for this batch, so it cannot have gone; if it did, a slot or a place instead.
        decision := case when ws_live < copy_cap and host_live < p_host_cap then 'admit' else 'queue' end;
      end if;
    elsif decision = 'evict' then
      -- One copy given up frees the workspace's slot if that is short, and the host's if that is:
      -- one of this workspace on this host frees both. Warm ones before paused ones, oldest first.
      select c.id, c.state into victim from runner_copies c
      where c.state in ('warm', 'paused')
        and (ws_live < copy_cap or c.workspace_id = ws::uuid)
        and (host_live < p_host_cap or c.runner_id = p_runner)
      order by (c.state = 'warm') desc, coalesce(c.paused_at, c.ready_at, c.asked_at)
      limit 1 for update skip locked;
      if found then
        update runner_copies c set state = 'ended', seq = c.seq + 1, end_reason = 'evicted', ended_at = clock_timestamp()
        where c.id = victim.id and c.state = victim.state
        returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id, c.runner_id into moved;
      end if;
      if found then
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, detail)
        values (moved.id, moved.seq, moved.workspace_id, moved.project_id, moved.build_id, 'stop', 'evicted')
        on conflict (copy_id, seq) do nothing;
        if moved.workspace_id = ws::uuid then
          ws_live := ws_live - 1;
          ws_spare := ws_spare - 1;
        end if;
        if moved.runner_id = p_runner then
          host_live := host_live - 1;
          host_spare := host_spare - 1;
        end if;
        kind := 'evicted';
        copy_id := moved.id;
        return next;
        copy_id := null;
        decision := 'admit';
      else
        -- Nothing there to give up after all (another took it): the viewer waits in line.
        ws_spare := 0;
        host_spare := 0;
        decision := 'queue';
      end if;
    end if;

    if decision in ('admit', 'queue') then
      copy_id := gen_random_uuid();
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, admitted_at, active_at)
      values (copy_id, p_runner, ws::uuid, proj::uuid, build::uuid, sess::uuid, 'viewer',
              case when decision = 'admit' then 'creating' else 'queued' end,
              case when decision = 'admit' then clock_timestamp() end, clock_timestamp())
      on conflict (session_id) where state <> 'ended' do nothing;
      if not found then
        -- The session got a copy meanwhile (the unique index decides): that one is theirs.
        kind := 'existing';
        copy_id := null;
        return next;
        continue;
      end if;
      if decision = 'admit' then
        kind := 'admitted';
        ws_live := ws_live + 1;
        host_live := host_live + 1;
      else
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind)
        values (copy_id, 0, ws::uuid, proj::uuid, build::uuid, 'queued');
        kind := 'queued';
        ws_queued := ws_queued + 1;
      end if;
    end if;

    live_now := live_now || jsonb_build_object(sess, true);
    rooms := rooms || jsonb_build_object(proj, coalesce((rooms->>proj)::int, 0) + 1);
    wss := wss || jsonb_build_object(ws, jsonb_build_array(ws_live, ws_queued, ws_spare));
    return next;
  end loop;
end;
$$;
