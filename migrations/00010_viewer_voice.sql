-- The viewer's voice (spec 2.5, 2.7, 4.2; issue 14): the What happens next steps a room offers,
-- the viewers' answers to them, comments pinned to screens with their screenshots and the
-- builder's reply, and what the content origins learnt about the capture agent.

-- A project's What happens next steps. A project without rows offers the default steps
-- (services/data/next-steps.sql.ts). A step left out by setNextSteps keeps its row and words
-- with a null position: putting it back restores them.
create table next_steps (
  project_id uuid not null references projects(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  kind text not null check (kind in ('meeting', 'yes', 'later', 'colleague', 'question', 'no')),
  label text not null check (char_length(label) between 1 and 60),
  prompt text check (char_length(prompt) between 1 and 200),
  -- The booking address of a meeting step; http(s) only.
  url text check (char_length(url) <= 500),
  -- 0-based order among the offered steps; null when the step was left out (words kept).
  position integer check (position between 0 and 5),
  updated_at timestamptz not null default clock_timestamp(),
  primary key (project_id, kind),
  unique (project_id, position) deferrable initially deferred
);

-- A viewer's answer to one step. Once per step per visit: a double click stores one.
create table responses (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  -- Links are never deleted but with their project; a revoked link keeps its answers.
  link_id uuid not null references links(id) on delete cascade,
  session_id uuid references room_sessions(id) on delete set null,
  visit_id uuid references visits(id) on delete set null,
  viewer_name text not null,
  step text not null check (step in ('meeting', 'yes', 'later', 'colleague', 'question', 'no')),
  -- What the step asked for: a question's text, a colleague's name and email, a chosen time.
  detail jsonb,
  created_at timestamptz not null default clock_timestamp(),
  unique (visit_id, step)
);
create index responses_project on responses (project_id, created_at desc);

-- A comment pinned to a screen of the app, with the builder's one reply.
create table comments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  link_id uuid references links(id) on delete cascade,
  session_id uuid references room_sessions(id) on delete set null,
  build_id uuid references builds(id) on delete set null,
  viewer_name text,
  viewer_email text,
  app_id text check (char_length(app_id) <= 40),
  -- The app's path inside its frame when the comment was made.
  screen text check (char_length(screen) <= 2000),
  body text not null check (char_length(body) between 1 and 2000),
  -- Relative to the frame (0..1 each way), so they hold at other window sizes.
  position jsonb,
  area jsonb,
  device text check (device in ('phone', 'tablet', 'laptop', 'screen', 'none')),
  -- The picture in the object store (re-encoded), or why there is none.
  screenshot_key text,
  screenshot_type text check (screenshot_type in ('image/png', 'image/webp')),
  screenshot_width integer,
  screenshot_height integer,
  screenshot_bytes integer,
  screenshot_note text check (screenshot_note in ('removed', 'no-answer', 'timeout', 'blocked', 'tainted', 'too-large', 'failed')),
  resolved_at timestamptz,
  reply text check (char_length(reply) between 1 and 2000),
  replied_at timestamptz,
  replied_by uuid references people(id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  check ((screenshot_key is null) = (screenshot_type is null)),
  check (screenshot_key is null or screenshot_note is null)
);
create index comments_project on comments (project_id, created_at desc);
create index comments_link on comments (link_id, created_at);

-- Pages a content origin sent a session whose own Content-Security-Policy stops the room's
-- capture agent: a comment without an answer from such a frame says `blocked`, not `no-answer`.
-- One row per session and content origin, for its latest page: `blocked` false once a page lets
-- the agent in again.
create table capture_blocks (
  session_id uuid not null references room_sessions(id) on delete cascade,
  origin_label text not null,
  blocked boolean not null,
  at timestamptz not null default clock_timestamp(),
  primary key (session_id, origin_label)
);

-- The first comment or answer of a session asks for an email once, when the room has none.
alter table room_sessions add column email_asked_at timestamptz;
