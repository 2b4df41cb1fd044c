-- Community profiles and the projects' arrangement (spec 2.9, 4.5; issue 18).

-- The person's public bio beside their handle (people.handle, unique, exists since 00001).
alter table people add column bio text;

-- A handle given up is held from others for 30 days, as a deleted project's slug is, so nobody
-- can take it at once and stand in for its holder where the old profile address was shared. Its
-- last holder may take it back.
create table released_handles (
  handle text primary key,
  person_id uuid references people(id) on delete set null,
  released_at timestamptz not null default now()
);

-- A workspace's groups of projects, in the builder's order (at most 30, checked under the
-- workspace's arrangement lock).
create table project_groups (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  name text not null check (char_length(name) between 1 and 40),
  position integer not null,
  created_at timestamptz not null default clock_timestamp()
);
create index project_groups_workspace on project_groups (workspace_id, position);

-- Where a project stands in its workspace's arrangement: ungrouped (group_id null) or in a group,
-- at `position` within that list. A project without a row is unplaced: it comes first among the
-- ungrouped, newest first. Rows are rewritten whole under the workspace's arrangement lock.
create table project_places (
  project_id uuid primary key references projects(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  group_id uuid references project_groups(id) on delete set null,
  position integer not null
);
create index project_places_workspace on project_places (workspace_id);
