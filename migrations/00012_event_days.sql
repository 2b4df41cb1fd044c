-- Analytics roll-ups (issue 15, item 8): the room's events summed per project per UTC day, so a
-- range of days answers from at most one row a project a day however many events there were.
-- Written by the worker job event-days.rollup (workers/event-days-rollup/), read by projectAnalytics and
-- workspaceAnalytics (services/data/event-days.sql.ts). Today is never rolled: it answers from the
-- raw events, so the figures are current.

create table event_days (
  project_id uuid not null references projects(id) on delete cascade,
  workspace_id uuid not null,
  day date not null,
  -- entry events (the shell really ran), and the distinct sessions that had one.
  views integer not null default 0,
  viewers integer not null default 0,
  -- The sum of time events' seconds, and the same per subject (an app or page id → seconds).
  active_seconds bigint not null default 0,
  time jsonb not null default '{}',
  -- step id → distinct sessions that took it; scenario id (or `reset`) → runs;
  -- What happens next step kind → answers.
  steps jsonb not null default '{}',
  scenarios jsonb not null default '{}',
  answers jsonb not null default '{}',
  comments integer not null default 0,
  -- Viewers a full room turned away (room_bounces rows whose hour falls in the day).
  bounces integer not null default 0,
  rolled_at timestamptz not null default clock_timestamp(),
  -- projectAnalytics: one project's days in a range.
  primary key (project_id, day)
);
-- workspaceAnalytics: every project's days in a range.
create index event_days_workspace_day on event_days (workspace_id, day);

-- The days the job has rolled (for every project at once). A past day not listed here answers from
-- the raw events, so analytics stay right while the workers are behind.
create table event_days_rolled (
  day date primary key,
  rolled_at timestamptz not null default clock_timestamp()
);

-- The roll-up of one day reads that day's events and bounces across every project.
create index room_events_at on room_events (at);
create index room_bounces_hour on room_bounces (hour);
