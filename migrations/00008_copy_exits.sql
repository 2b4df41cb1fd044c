-- Copies that exited on their own (issue 13): the exit code and the last lines of output, so a
-- builder can read why their demo stopped (GET /api/projects/:projectId/exits, `pitch logs`).
-- Exits the runner asked for (a stop, an idle removal) are not recorded. The output is bounded
-- (50 lines, 8 KB) and run.env's secret-looking values are masked before it is written.
create table copy_exits (
  id bigint generated always as identity primary key,
  -- A copy exits once: the event stream and a reconcile that both saw it record it once.
  copy_id uuid not null unique references runner_copies(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null,
  build_id uuid not null,
  -- Whether the copy had answered its health path: a crash ("the demo stopped"), or a start that
  -- failed ("could not start").
  healthy boolean not null,
  exit_code integer,
  oom boolean not null default false,
  output text not null default '',
  at timestamptz not null default clock_timestamp()
);
create index copy_exits_project_at on copy_exits (workspace_id, project_id, at desc);
