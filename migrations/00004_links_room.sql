-- Private links, visits, the room's setup and pause, its pages, preview passes and the project
-- history (spec 2.4, 2.5, 2.7, 3 and 4.2).

create table links (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  viewer_name text not null,
  viewer_email text,
  -- sha256 of the key in the address (/r/<key>): the room finds a link by this alone.
  key_hash bytea not null unique,
  -- The key sealed with AES-256-GCM under a key derived from APP_SECRET, so revealLink can show
  -- the address again. Null on links made before 1 October 2026 (only the hash was kept) and on
  -- revoked links: such an address cannot be shown again.
  key_sealed bytea,
  stage text not null default 'sent' check (stage in ('sent', 'opened', 'engaged', 'yes', 'later', 'no')),
  created_by uuid references people(id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz,
  revoked_at timestamptz,
  -- When the key was last replaced (reissueLink); the old address stopped then.
  reissued_at timestamptz,
  -- First arrival through the link (the room sets it, with stage 'opened').
  opened_at timestamptz
);
create index links_project on links (project_id, created_at desc);
create index links_workspace on links (workspace_id, created_at desc);

-- One viewer's stay in a room (spec 2.5). The room writes these; a preview records none.
create table visits (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  link_id uuid references links(id) on delete set null,
  viewer_name text,
  started_at timestamptz not null default clock_timestamp(),
  -- Moved on by the room while the visit is open; the visit counts up to ended_at, else this.
  last_seen_at timestamptz not null default clock_timestamp(),
  ended_at timestamptz,
  -- Seconds spent per app and page, by their id.
  time jsonb not null default '{}',
  preview boolean not null default false,
  check (last_seen_at >= started_at),
  check (ended_at is null or ended_at >= started_at)
);
create index visits_project on visits (project_id, started_at desc);
create index visits_link on visits (link_id, started_at desc);
-- Viewer-hours of the month: every visit of a workspace still seen after a moment.
create index visits_workspace_seen on visits (workspace_id, (coalesce(ended_at, last_seen_at)));

-- The room of a project: its app order and the owner's pause. A project without a row has the
-- manifest's order and is not paused.
create table rooms (
  project_id uuid primary key references projects(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  -- App ids named by orderApps, in that order; null means the manifest's order.
  app_order text[],
  paused_at timestamptz,
  paused_by uuid references people(id) on delete set null,
  pause_message text check (char_length(pause_message) <= 280)
);

create table room_pages (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  kind text not null check (kind in ('markdown', 'html')),
  content text not null check (char_length(content) <= 2000000),
  -- 0-based and without gaps within a project.
  position integer not null check (position >= 0),
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (project_id, title),
  unique (project_id, position) deferrable initially deferred
);

-- One-time addresses that open the room as a viewer sees it (spec 4.2 previewPass).
create table preview_passes (
  key_hash bytea primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  person_id uuid references people(id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  spent_at timestamptz
);
create index preview_passes_expiry on preview_passes (expires_at);

-- The project history (spec 2.7, 6). Append-only: rows are added, never changed. The actor is kept
-- as a bare id (no foreign key) so that deleting a person changes no row; their name is looked up
-- when read, and shows as null once they are gone.
create table project_history (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  kind text not null check (kind in ('room.pause', 'room.message', 'room.resume', 'link.copy', 'link.reissue', 'room.busy')),
  by_person uuid,
  message text,
  link_id uuid,
  -- The link's viewer name when the entry was written.
  viewer text,
  until timestamptz,
  at timestamptz not null default clock_timestamp()
);
create index project_history_project on project_history (project_id, at desc);

create function project_history_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'project_history is append-only';
end $$;
create trigger project_history_no_update before update on project_history
  for each row execute function project_history_append_only();
