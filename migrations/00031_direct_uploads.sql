-- Issue 32: uploads straight to the object store (docs/decisions/uploads.md).
-- An upload above 8 MiB sent direct is a multipart upload that the api starts in the store; its
-- id is kept so completeUpload can assemble it and the sweep can abort it when it is abandoned
-- (a store keeps the parts of an unfinished multipart upload until it is aborted).
alter table uploads add column multipart_id text
  check (multipart_id is null or length(multipart_id) between 1 and 1024);
