-- Workspaces and teams (spec 2.6, 3 Invitation and Team, 4.3; issue 16): invitations, the
-- team's record, deleted teams, and people's photos.

-- An invitation to a team. Its address carries a one-use key kept only as a hash; it is usable
-- once, within 7 days, by the person signed in with `email` (verified). A waiting one (neither
-- used nor revoked, unexpired) holds a seat.
create table invitations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  email text not null check (email = lower(email) and char_length(email) <= 254),
  role text not null default 'member' check (role in ('owner', 'member')),
  invited_by uuid references people(id) on delete set null,
  key_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  used_by uuid references people(id) on delete set null,
  revoked_at timestamptz
);
-- One waiting invitation per address and team (checked under the team's lock; this index is
-- what lists and counts them).
create index invitations_waiting on invitations (workspace_id, email) where used_at is null and revoked_at is null;

-- The team's record (spec 6: "joining a team in the team's record"): who joined, left, was
-- removed, changed role, was invited; the team's renames. Kept while the team is.
create table workspace_history (
  id bigint generated always as identity primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  kind text not null check (kind in ('team.create', 'team.rename', 'team.delete', 'member.join', 'member.leave',
                                     'member.remove', 'member.role', 'invitation.create', 'invitation.revoke')),
  -- Who did it, and whom it was about (null when that person's account is gone).
  actor_id uuid references people(id) on delete set null,
  subject_id uuid references people(id) on delete set null,
  detail jsonb not null default '{}',
  at timestamptz not null default clock_timestamp()
);
create index workspace_history_at on workspace_history (workspace_id, at desc);

-- A deleted team keeps its row (its projects' slugs stay held 30 days, as any deleted project's);
-- its members, invitations and sessions' choice of it go.
alter table workspaces add column deleted_at timestamptz;

-- A person's uploaded photo: the object under photos/<person id>, and its content hash (the ETag
-- and the cache-busting part of its address).
alter table people add column photo_hash text;
