-- Usage reconciled against the engine's own record (issue 46, item 1; docs/runner.md "Usage and
-- billing"). The engine forgets a container once it is removed, so the runner keeps the engine's
-- record of the copy's run on its row as it removes it: podman's State.StartedAt/FinishedAt, a
-- pod's container status on Kubernetes. engine_checked_at is when the runner asked (set even when
-- the engine held nothing: a billed copy with that mark and no start is one the engine never ran;
-- rows removed before this migration have no mark and are not judged).
alter table runner_copies
  add column engine_started_at timestamptz,
  add column engine_finished_at timestamptz,
  add column engine_checked_at timestamptz;

-- A copy found running in the engine with no record behind it: its row is made from the
-- container's labels, ended, and its seconds billed to the workspace that made it.
alter table runner_copies drop constraint if exists runner_copies_origin_check;
alter table runner_copies add constraint runner_copies_origin_check check (origin in ('viewer', 'warm', 'unowned'));

-- 'void': the reconciliation found a billed copy the engine never ran. The copy's earlier events
-- stay (a correction, never a deletion); copySeconds bills a voided copy nothing, so its open
-- month drops and a closed month's statement is corrected in the next one.
alter table copy_events drop constraint if exists copy_events_kind_check;
alter table copy_events add constraint copy_events_kind_check
  check (kind in ('queued', 'start', 'ready', 'claim', 'pause', 'resume', 'stop', 'fail', 'void'));

-- The reconciliation reads this runner's copies whose life touches its window.
create index runner_copies_runner_ended on runner_copies (runner_id, ended_at) where state = 'ended';
