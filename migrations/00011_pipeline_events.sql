-- The pipeline and the room's evidence (spec 2.4 BoardCard, 3 link stage and outcome, 4.2
-- pipeline; issue 15): what the room saw as events, who claimed each link, and what the builder
-- decides about each deal (a manual stage, an outcome, a follow-up, notes).

-- What the room saw, one row an event, written in batches (services/data/room-events.sql.ts).
-- No foreign key but the project's: events outlive the sessions the sweep removes, and a busy
-- room's inserts should check as little as they can.
create table room_events (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  project_id uuid not null references projects(id) on delete cascade,
  link_id uuid,
  session_id uuid,
  visit_id uuid,
  -- entry: the shell ran for the session (a real open); time: `seconds` on `subject` (an app or
  -- page id); step: a story step taken (`subject` its id); scenario: a scenario or reset run
  -- (`subject` its id, or `reset`); answer: a What happens next answer (`subject` the step kind);
  -- comment: a comment left (`subject` the app id); hidden / shown: the room's tab went out of
  -- and back into view; leave: the viewer left.
  kind text not null check (kind in ('entry', 'time', 'step', 'scenario', 'answer', 'comment', 'hidden', 'shown', 'leave')),
  subject text check (char_length(subject) <= 80),
  seconds integer not null default 0 check (seconds between 0 and 86400),
  -- A coarse device from the browser's user agent.
  device text check (device in ('desktop', 'tablet', 'phone')),
  at timestamptz not null default clock_timestamp()
);
create index room_events_project_at on room_events (project_id, at);
create index room_events_workspace_at on room_events (workspace_id, at);
create index room_events_link_at on room_events (link_id, at) where link_id is not null;

-- Who said they were behind a link: one row per session that answered who-are-you (or entered
-- with the link's own name), with the browser it came from. A name, an email or a browser other
-- than the link's first makes the link `forwarded`.
create table link_claims (
  link_id uuid not null references links(id) on delete cascade,
  session_id uuid not null,
  name text check (char_length(name) between 1 and 80),
  email text check (char_length(email) <= 254),
  -- sha256 of the browser's random id cookie (__Host-pp_browser); null when it had none.
  browser_hash bytea,
  device text check (device in ('desktop', 'tablet', 'phone')),
  first_seen_at timestamptz not null default clock_timestamp(),
  last_seen_at timestamptz not null default clock_timestamp(),
  primary key (link_id, session_id)
);

-- The builder's own view of a deal. `stage` stays the evidence's (shown as `suggested`);
-- `placed_stage` wins over it while set.
alter table links
  add column placed_stage text check (placed_stage in ('sent', 'opened', 'engaged', 'yes', 'later', 'no')),
  add column placed_at timestamptz,
  add column outcome text check (outcome in ('won', 'lost', 'later')),
  add column follow_up_on date,
  add column follow_up_note text check (char_length(follow_up_note) between 1 and 2000);

create table link_notes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  link_id uuid not null references links(id) on delete cascade,
  body text not null check (char_length(body) between 1 and 2000),
  by_person uuid references people(id) on delete set null,
  created_at timestamptz not null default clock_timestamp()
);
create index link_notes_link on link_notes (link_id, created_at desc);
