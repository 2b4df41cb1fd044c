-- A layer's size as the registry stores it, once a pushed image's check has read it (issue 48;
-- workers/bundle-check/read-pushed-image.ts). A digest names its bytes, so the size behind it
-- never changes: a later build of the same workspace that names the digest with the same size
-- needs no HEAD of the blob (a redeploy's kept layers, a second project's base). Kept per workspace,
-- as the registry's mounts are; forgotten when the garbage collection deletes the blob.
create table checked_blob_sizes (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  digest text not null check (digest ~ '^sha256:[0-9a-f]{64}$'),
  size bigint not null check (size >= 0),
  checked_at timestamptz not null default now(),
  primary key (workspace_id, digest)
);
create index checked_blob_sizes_digest on checked_blob_sizes (digest);
