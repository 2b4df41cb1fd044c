-- Issue 48: a redeploy's manifest goes up beside its rehearsal, before createBuild. One whose
-- rehearsal then fails (or one a client pushed by hand and never built) is named by no build, so
-- neither the sweep of superseded builds nor the garbage collection would ever free its layers.
-- The registry gate now records which project's repository a manifest PUT went to, and the sweep
-- deletes a manifest no build of that project names once a day has passed since its push
-- (workers/leftovers-sweep/pushed-manifests.sweep.ts); `unbuilt_deleted_at` says it was.
alter table registry_pushes add column project_id uuid;
alter table registry_pushes add column unbuilt_deleted_at timestamptz;
create index registry_pushes_unbuilt on registry_pushes (started_at)
  where project_id is not null and digest is not null and unbuilt_deleted_at is null;
