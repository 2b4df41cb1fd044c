-- Issue 45: the registry's storage bounded, and pull logins that end.
--
-- What each workspace has put into the registry, as the api's registry gate
-- (services/api/registry/registry-gate.routes.ts) forwarded it: one row per upload (Distribution's
-- upload id) or manifest PUT, its bytes reserved before they were forwarded. A finished one has
-- the digest the registry stored it under; an unfinished one counts until the registry's upload
-- purging has surely removed its data (registry-usage.sql.ts). Rows of a digest the garbage
-- collection deleted are forgotten then (workers/leftovers-sweep/registry-gc.sweep.ts).
create table registry_pushes (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  upload text not null check (length(upload) <= 200),
  bytes bigint not null default 0 check (bytes >= 0),
  digest text check (length(digest) <= 200),
  started_at timestamptz not null default now(),
  primary key (workspace_id, upload)
);
create index registry_pushes_digest on registry_pushes (digest) where digest is not null;
create index registry_pushes_started on registry_pushes (started_at);

-- A workspace's pull logins (registry-pull.ts) issued before this moment (whole seconds) are refused: an
-- operator's revocation (a leaked pull secret). The runner's next login is issued after it.
alter table workspaces add column pull_logins_revoked_at timestamptz;
