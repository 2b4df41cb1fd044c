-- The registry's garbage collection (issue 32), scheduled by the sweep. One row per registry the
-- platform uses (its REGISTRY_URL). Distribution's garbage-collect is unsafe beside a push (a
-- layer sent before its manifest is unreferenced and would go), so a collection first closes
-- pushes (the api's /v2/token grants no push while pushes_closed_at is set), waits out the
-- longest push token, runs, and reopens them (workers/leftovers-sweep/registry-gc.sweep.ts).
create table registry_gc (
  registry text primary key check (length(registry) <= 500),
  -- The sweep deleted manifests since the last collection: their layers wait to be freed.
  wanted_since timestamptz,
  -- A collection's window: no push token is issued from then until it ends.
  pushes_closed_at timestamptz,
  -- The collector running it (a claim; one older than an hour is taken as dead).
  running_since timestamptz,
  last_run_at timestamptz,
  -- What the last run freed, or why it failed: { blobs, manifests, ms } or { error }.
  last_result jsonb
);

-- A deleted account's pushed images: `<repository>@<digest>` of each manifest its workspaces'
-- builds left in the registry (the rows go with the account), deleted by its purge.
alter table account_purges add column registry_manifests text[] not null default '{}';
