-- The runner hosts of a fleet (issue 31, docs/runner.md "Several runner hosts"): each runner
-- registers itself and beats every 5 s; the room and the api place a viewer's copy on a live host
-- and reach that host's runner API (and, with the data plane, its copy origin). A host whose
-- beat stops for RUNNER_HOST_LOST_S is lost: a surviving runner of the fleet ends its copies
-- once, at its last beat, and marks it (lost_at) so nothing is ended or counted twice.
create table runner_hosts (
  -- RUNNER_ID: the label on the host's containers, and runner_copies.runner_id.
  id text primary key check (id ~ '^[a-z0-9][a-z0-9-]{0,39}$'),
  -- One platform's hosts (RUNNER_FLEET): placement and the lost-host sweep stay inside it.
  fleet text not null check (fleet ~ '^[a-z0-9][a-z0-9-]{0,39}$'),
  -- The runner's internal API as the room and the api reach it (RUNNER_ADVERTISE_URL).
  api_url text not null check (length(api_url) between 1 and 500),
  -- Where viewers' copy traffic for this host goes: its data-plane proxy (RUNNER_COPY_ORIGIN);
  -- null while the room proxies copies itself.
  copy_origin text check (length(copy_origin) between 1 and 500),
  -- Copies the host takes at once (RUNNER_HOST_CAPACITY), as placement counts free slots.
  slots integer not null check (slots between 0 and 100000),
  started_at timestamptz not null default clock_timestamp(),
  -- Last beat (every 5 s).
  seen_at timestamptz not null default clock_timestamp(),
  -- Set once when a survivor ended the host's copies; cleared when the host beats again.
  lost_at timestamptz
);
create index runner_hosts_fleet on runner_hosts (fleet, seen_at);
