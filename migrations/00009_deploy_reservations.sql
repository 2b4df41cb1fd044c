-- A deploy is reserved when createBuild accepts it, under the workspace's lock, so racing
-- createBuilds cannot all pass the deploys-per-24-hours check (docs/decisions/projects-and-deploys.md).
-- The reservation is the deploy: it counts from reserved_at whatever becomes of it,
-- unless it is released because the build was refused or given up before it was made.
-- `made` is set in the transaction that writes the build row; a released (deleted) reservation
-- stops a job still running from making its build.
create table deploy_reservations (
  build_id uuid primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  upload_id uuid not null references uploads(id) on delete cascade,
  made boolean not null default false,
  reserved_at timestamptz not null default clock_timestamp()
);
create index deploy_reservations_recent on deploy_reservations (workspace_id, reserved_at);

