-- People, workspaces, memberships and sign-in (spec sections 1, 2.6, 2.10 and 5).
-- Secrets (session tokens, sign-in link tokens, device codes) are stored only as sha256 hashes.

create table people (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email)),
  -- The name the person chose; empty until they choose one (displayName falls back to the email).
  name text not null default '',
  email_verified boolean not null default false,
  handle text unique,
  created_at timestamptz not null default now()
);

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  kind text not null check (kind in ('personal', 'team')),
  -- Null on a new team: it has no plan until one is bought (spec 4.3).
  plan text check (plan in ('free', 'solo', 'pro', 'studio', 'team', 'agency', 'organisation', 'enterprise')),
  -- The platform's pause of the whole workspace (operator `suspend`).
  suspended_at timestamptz,
  created_at timestamptz not null default now()
);

create table memberships (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  person_id uuid not null references people(id) on delete cascade,
  role text not null check (role in ('owner', 'member')),
  joined_at timestamptz not null default clock_timestamp(),
  primary key (workspace_id, person_id)
);
create index memberships_person on memberships (person_id, joined_at);

-- One personal workspace per person.
create table personal_workspaces (
  person_id uuid primary key references people(id) on delete cascade,
  workspace_id uuid not null unique references workspaces(id) on delete cascade
);

create table sessions (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references people(id) on delete cascade,
  token_hash bytea not null unique,
  -- web: the app's cookie; cli: the command-line tool; connector: the AI-assistant connector.
  kind text not null check (kind in ('web', 'cli', 'connector')),
  read_only boolean not null default false,
  sign_in_method text,
  user_agent text,
  active_workspace_id uuid references workspaces(id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz
);
create index sessions_person on sessions (person_id, created_at desc);

create table email_sign_ins (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

create table device_logins (
  id uuid primary key default gen_random_uuid(),
  device_code_hash bytea not null unique,
  user_code text not null unique,
  user_agent text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  approved_by uuid references people(id) on delete cascade,
  approved_at timestamptz,
  -- Set once the token was handed out: a device code yields one token, once.
  redeemed_at timestamptz
);
