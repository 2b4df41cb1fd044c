-- Viewer sessions of the room (spec 7, "What a viewer meets"), the grants that carry a session
-- onto a content origin, and the turn-aways of a full room (projectBounces).

-- One browser's stay in one room, through one link or one preview pass. The cookie holds the
-- token; only its hash is kept. A session outlives its visits: a viewer who goes quiet and comes
-- back within the session gets a new visit, not a new who-are-you prompt.
create table room_sessions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  link_id uuid references links(id) on delete cascade,
  -- sha256 of the link key or preview pass the session came in through: a reload of that address
  -- finds the session again (a spent preview pass opens nothing else).
  entry_hash bytea not null,
  token_hash bytea not null unique,
  preview boolean not null default false,
  -- The who-are-you answer and, when the project asks for it, the email; null until given.
  viewer_name text check (char_length(viewer_name) between 1 and 80),
  viewer_email text check (char_length(viewer_email) <= 254),
  visit_id uuid references visits(id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  last_seen_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  ended_at timestamptz,
  check (link_id is not null or preview)
);
create index room_sessions_project_seen on room_sessions (project_id, last_seen_at desc) where ended_at is null;

-- A one-use ticket from the room shell to a content origin, exchanged there for that origin's
-- own cookie. Lives a minute.
create table content_grants (
  grant_hash bytea primary key,
  session_id uuid not null references room_sessions(id) on delete cascade,
  -- The content origin's host label the grant is good for: a project slug, or a copy's label.
  origin_label text not null,
  expires_at timestamptz not null,
  spent_at timestamptz
);
create index content_grants_expiry on content_grants (expires_at);

-- Viewers a full room turned away, once per browser per hour (spec 4.2 projectBounces).
create table room_bounces (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  -- A random id the browser keeps in a cookie, hashed; the hour the bounce falls in.
  browser_hash bytea not null,
  hour timestamptz not null,
  primary key (project_id, browser_hash, hour)
);
