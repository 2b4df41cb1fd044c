-- A project beyond its workspace's plan is paused by the platform (423 over-limit) until the
-- plan changes or the operator restores the workspace (spec 7).
alter table projects add column over_limit_at timestamptz;
