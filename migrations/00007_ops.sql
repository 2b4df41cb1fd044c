-- The sweep (workers/leftovers-sweep) purges a deleted project's stored bytes once its slug hold (30 days)
-- has passed, and records when, so every later sweep passes it by. The row itself stays: links,
-- visits, copies and usage of past months keep their numbers.
alter table projects add column purged_at timestamptz;
create index projects_to_purge on projects (deleted_at) where deleted_at is not null and purged_at is null;
