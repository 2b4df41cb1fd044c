-- Container builds whose image was pushed to the registry (issue 32): the build records the
-- image's manifest digest (in the repository `<workspace id>/<project id>`) and has no upload.
-- Tarball builds (older CLIs, static builds) keep their upload and no manifest.
alter table builds alter column upload_id drop not null;
alter table builds add column image_manifest text
  check (image_manifest is null or image_manifest ~ '^sha256:[0-9a-f]{64}$');
alter table builds add constraint builds_upload_or_image check (upload_id is not null or image_manifest is not null);
-- When the sweep deleted a deleted build's manifest from the registry (its layers are then
-- garbage to the registry's garbage-collect); null while it still holds it.
alter table builds add column manifest_deleted_at timestamptz;
