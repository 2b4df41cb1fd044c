-- Issue 28 (security review 3, M6): a deploy that fails still costs, an upload refused by the
-- archive check stays refused, and unused uploads are bounded (docs/decisions/projects-and-deploys.md).

-- `refused`: the archive check refused the bytes; no createBuild may unpack them again. The
-- check's words are kept to answer the next attempt with. The bytes are deleted at once.
alter table uploads drop constraint uploads_state_check;
alter table uploads add constraint uploads_state_check
  check (state in ('declared', 'receiving', 'received', 'building', 'used', 'refused'));
alter table uploads add column refusal text;
-- The bytes a workspace holds in uploads not yet built (the quota read by startUpload).
create index uploads_workspace_open on uploads (workspace_id)
  where state in ('declared', 'receiving', 'received', 'building');

-- A reservation given up (its build refused, failed or timed out) is kept and marked, no longer
-- deleted: it stops counting as a deploy and counts as a failed attempt for 24 hours. Sweeping an
-- upload must not wipe the attempts made with it, so the link to the upload is cut, not cascaded.
alter table deploy_reservations add column given_up_at timestamptz;
alter table deploy_reservations alter column upload_id drop not null;
alter table deploy_reservations drop constraint deploy_reservations_upload_id_fkey;
alter table deploy_reservations add constraint deploy_reservations_upload_id_fkey
  foreign key (upload_id) references uploads(id) on delete set null;
