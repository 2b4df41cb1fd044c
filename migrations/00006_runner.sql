-- The runner's copies of container builds, one per viewer session, and the usage events that
-- bill them (issue 6; spec 2.10 ContainerUsage). See docs/runner.md.

-- One row per copy, from the moment a viewer asks (or the warm pool reserves a slot) until the
-- copy is gone. The row is written before the engine is asked for anything, so a runner that
-- dies at any point leaves a record its successor finds (reconcile) rather than an unknown
-- container. Rows are kept after they end: they carry the cold-start figures and the history.
create table runner_copies (
  id uuid primary key,
  -- The runner instance (one per container host) that owns the copy; its label on the container.
  runner_id text not null,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  -- No foreign key: the sweep purges a deleted project's builds after 30 days, and its copies'
  -- records and usage must outlive that (past months keep their numbers).
  build_id uuid not null,
  -- The room's viewer session; null while the copy waits in the warm pool.
  session_id uuid,
  -- Why it was made: for a viewer who asked, or ahead of viewers by the warm pool.
  origin text not null check (origin in ('viewer', 'warm')),
  -- queued: waits for a slot (high demand); creating: slot reserved, engine being asked;
  -- starting: container made, waiting for its health path; warm: healthy, in the pool;
  -- running: a viewer's; paused: frozen while its viewer is away; ended: gone for good.
  state text not null check (state in ('queued', 'creating', 'starting', 'warm', 'running', 'paused', 'ended')),
  -- left, idle, max-age, evicted, recycled, exited, oom, vanished, build-changed, abandoned,
  -- failed:<why> (image, exited, oom, health, engine, interrupted).
  end_reason text,
  container_id text,
  network_id text,
  -- Where the runner (and the room's proxy) reaches the copy: its address on its own network.
  host text,
  port integer,
  -- Bumped at every change of state; usage events are unique per (copy_id, seq), so a
  -- transition written twice (a retry, two runners) is counted once.
  seq integer not null default 0,
  -- When the viewer asked; orders the queue (first come, first served).
  asked_at timestamptz not null default clock_timestamp(),
  -- When a slot was reserved: the cold-start clock starts here (queue time is not start time).
  admitted_at timestamptz,
  started_at timestamptz,
  ready_at timestamptz,
  claimed_at timestamptz,
  paused_at timestamptz,
  -- Last activity: proxied requests, open WebSockets, the room shell's heartbeat.
  active_at timestamptz,
  -- Last time the room asked about this session (a queued viewer who stops asking is let go).
  seen_at timestamptz not null default clock_timestamp(),
  ended_at timestamptz,
  -- Viewer asked (or slot reserved) to health 200, and the phases that made it up (ms).
  cold_start_ms integer,
  phases jsonb,
  check ((state = 'ended') = (ended_at is not null))
);
-- A session has at most one copy that is not ended: entering twice finds the same copy.
create unique index runner_copies_session on runner_copies (session_id) where state <> 'ended';
create index runner_copies_workspace_live on runner_copies (workspace_id, state) where state <> 'ended';
create index runner_copies_runner_live on runner_copies (runner_id, state) where state <> 'ended';
create index runner_copies_project_live on runner_copies (project_id) where state <> 'ended';
create index runner_copies_queue on runner_copies (workspace_id, asked_at) where state = 'queued';
create index runner_copies_workspace_time on runner_copies (workspace_id, asked_at);

-- Every start, readiness, hand-off, pause, resume, stop and failure of a copy, and every viewer
-- held back in the queue. ContainerUsage is computed from these alone: container time runs from
-- start or resume to the next pause, stop or fail.
create table copy_events (
  id bigint generated always as identity primary key,
  copy_id uuid not null references runner_copies(id) on delete cascade,
  seq integer not null,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null,
  build_id uuid not null,
  kind text not null check (kind in ('queued', 'start', 'ready', 'claim', 'pause', 'resume', 'stop', 'fail')),
  at timestamptz not null default clock_timestamp(),
  -- On 'ready' of a copy a viewer waited for: asked (or admitted) to health 200.
  cold_start_ms integer,
  detail text,
  unique (copy_id, seq)
);
create index copy_events_workspace_at on copy_events (workspace_id, at);
create index copy_events_at on copy_events (at);

-- Each workspace's month, rolled up by the `usage` worker for billing. A month is `final` once
-- it is over and was rolled up after its end; until then the row is rewritten by each run.
create table usage_months (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  runs integer not null,
  container_hours numeric(14, 4) not null,
  failed_starts integer not null,
  held_back integer not null,
  median_cold_start_ms integer,
  final boolean not null default false,
  rolled_at timestamptz not null default clock_timestamp(),
  primary key (workspace_id, month)
);
