-- Projects, uploads, builds and releases (spec 2.2, 2.3, 3 and 4.1).

create table projects (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  slug text not null,
  name text not null,
  visibility text not null default 'private' check (visibility in ('private', 'public')),
  live_build_id uuid,
  require_email boolean not null default false,
  -- The platform's pause of this project (operator `takedown`).
  taken_down_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  deleted_at timestamptz
);
-- One live project per slug; a deleted one keeps holding it for 30 days (checked under a lock).
create unique index projects_slug_live on projects (slug) where deleted_at is null;
create index projects_workspace on projects (workspace_id, created_at desc) where deleted_at is null;
create index projects_slug on projects (slug, deleted_at);

create table uploads (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  kind text not null check (kind in ('static', 'container')),
  size_bytes bigint not null check (size_bytes >= 0),
  -- declared → receiving → received → building → used. `receiving` holds the PUT so a second
  -- one is refused; `building` holds the bytes while a build is made from them.
  state text not null default 'declared' check (state in ('declared', 'receiving', 'received', 'building', 'used')),
  created_by uuid references people(id) on delete set null,
  created_at timestamptz not null default now(),
  received_at timestamptz,
  used_at timestamptz
);
create index uploads_state on uploads (state, created_at);

create table builds (
  id uuid primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  upload_id uuid not null unique references uploads(id),
  kind text not null check (kind in ('static', 'container')),
  manifest jsonb not null,
  size_bytes bigint not null,
  note text,
  rehearsal jsonb,
  -- Static: the files unpacked under builds/<id>/files/; container: the image's start command.
  file_count integer,
  unpacked_bytes bigint,
  image jsonb,
  created_by uuid references people(id) on delete set null,
  created_at timestamptz not null default clock_timestamp()
);
create index builds_project on builds (project_id, created_at desc);
create index builds_workspace_recent on builds (workspace_id, created_at);

alter table projects add constraint projects_live_build foreign key (live_build_id) references builds(id);

-- Every time a build was made live: the first time, and each rollback to it.
create table releases (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  build_id uuid not null references builds(id) on delete cascade,
  released_by uuid references people(id) on delete set null,
  released_at timestamptz not null default clock_timestamp(),
  rollback boolean not null default false
);
create index releases_build on releases (build_id, released_at desc);
