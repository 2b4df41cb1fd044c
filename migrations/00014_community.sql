-- The community (spec 2.9, 3 Card, 4.5, 6 notices; issue 18): each project's card, its listing
-- and the checks it passed or failed, appeals, reports, notices and the operator's decisions.

create table cards (
  project_id uuid primary key references projects(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  title text not null check (char_length(title) between 1 and 60),
  line text not null check (char_length(line) between 1 and 140),
  status text not null default 'draft' check (status in ('draft', 'listed', 'blocked', 'pulled', 'pending')),
  reject_reason text,
  -- The failed checks ({part, reason, detail}) and the weaker findings of the last check.
  blocked jsonb not null default '[]',
  warnings jsonb not null default '[]',
  -- The cover shown (content hash and type of covers/<project>/<hash>), and one held back until
  -- its own check passes.
  cover_hash text,
  cover_type text,
  cover_pending boolean not null default false,
  -- The build that was live when the card was listed: the public room shows nothing else.
  listed_build_id uuid references builds(id) on delete set null,
  listed_at timestamptz,
  submitted_at timestamptz,
  reviewed_at timestamptz,
  -- Taken off by the platform once (pulled or taken down): a new listing waits for review.
  taken_off_at timestamptz,
  -- The person the listing credits by their community handle, when they chose to be named.
  credit_person_id uuid references people(id) on delete set null,
  updated_at timestamptz
);
create index cards_listed on cards (listed_at desc) where status = 'listed';

-- What the daily and monthly limits count (card edits, listings, appeals, reports), one row each,
-- so the counts hold across api processes and restarts.
create table community_actions (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('edit', 'list', 'appeal', 'report')),
  workspace_id uuid references workspaces(id) on delete cascade,
  project_id uuid references projects(id) on delete cascade,
  person_id uuid references people(id) on delete cascade,
  at timestamptz not null default now()
);
create index community_actions_workspace on community_actions (workspace_id, kind, at);
create index community_actions_person on community_actions (person_id, kind, at);
create index community_actions_project on community_actions (project_id, kind, at);

create table appeals (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  -- Exactly what was appealed: an upheld appeal lists this card and this build.
  title text not null,
  line text not null,
  build_id uuid references builds(id) on delete set null,
  message text not null check (char_length(message) between 10 and 1000),
  status text not null default 'open' check (status in ('open', 'upheld', 'denied')),
  created_by uuid references people(id) on delete set null,
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  decision_note text
);
create unique index appeals_one_open on appeals (project_id) where status = 'open';

create table reports (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  reporter_id uuid references people(id) on delete set null,
  reason text not null check (reason in ('phishing', 'impersonation', 'abuse', 'illegal', 'spam', 'other')),
  detail text check (char_length(detail) <= 1000),
  created_at timestamptz not null default now(),
  handled_at timestamptz
);
create index reports_open on reports (created_at) where handled_at is null;

-- A person's notices (spec 6): one row per member of the workspace when it was written.
create table notices (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references people(id) on delete cascade,
  workspace_id uuid references workspaces(id) on delete cascade,
  project_id uuid references projects(id) on delete set null,
  kind text not null check (kind in ('listing.blocked', 'listing.pulled', 'listing.takedown', 'appeal.upheld', 'appeal.denied')),
  title text not null,
  body text not null,
  href text,
  created_at timestamptz not null default clock_timestamp(),
  read_at timestamptz
);
create index notices_person on notices (person_id, created_at desc);

-- The operator's decisions on pending cards, appeals and takedowns, kept as the record.
create table review_decisions (
  id bigint generated always as identity primary key,
  project_id uuid references projects(id) on delete set null,
  appeal_id uuid references appeals(id) on delete set null,
  decision text not null check (decision in ('approve', 'reject', 'uphold', 'deny', 'takedown', 'restore')),
  note text,
  at timestamptz not null default now()
);

-- A community pass (communityPass): a one-time address back into a listed room for a signed-in
-- person, kept beside the preview passes it resembles.
alter table preview_passes add column kind text not null default 'preview' check (kind in ('preview', 'community'));

-- A public room's sessions have neither a link nor a preview pass (the room at /p/<slug>).
alter table room_sessions drop constraint room_sessions_check;
