-- Signed webhooks (issue 34; docs/decisions/webhooks.md): a workspace's HTTPS endpoints, one
-- delivery per (endpoint, product event), and every attempt at sending it.

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  url text not null check (char_length(url) between 1 and 2000),
  description text not null default '' check (char_length(description) <= 200),
  -- A subset of ProductEventKind (services/contract/resources/product-event.ts).
  kinds text[] not null check (cardinality(kinds) between 1 and 16),
  enabled boolean not null default true,
  -- The Standard Webhooks signing secret (whsec_…), sealed with APP_SECRET (services/core/infra/sealed-secret.ts).
  secret_sealed bytea not null,
  -- Why the platform switched the endpoint off (null when it did not, or the builder switched it back on).
  disabled_reason text check (char_length(disabled_reason) <= 300),
  -- Deliveries in a row whose every attempt failed, and when the first of them failed: the disable rule reads both.
  failed_in_a_row integer not null default 0,
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_workspace on webhook_endpoints (workspace_id, created_at);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces(id) on delete cascade,
  endpoint_id uuid not null references webhook_endpoints(id) on delete cascade,
  -- The product event's outbox id, or `test_<uuid>` for a test event: one delivery per (endpoint, event).
  event_id text not null check (char_length(event_id) <= 100),
  kind text not null check (char_length(kind) <= 40),
  -- The body as signed and sent ({ type, timestamp, data }); its size is capped where it is built.
  payload jsonb not null check (octet_length(payload::text) <= 65536),
  -- Each re-send starts a new series of attempts; the attempts of every series stay in the log.
  series integer not null default 1,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
  series integer not null,
  attempt integer not null,
  at timestamptz not null default now(),
  duration_ms integer not null,
  -- The HTTP status the endpoint answered; null when none came (refused, timed out, connection failed).
  status_code integer,
  ok boolean not null,
  -- Why it failed, in a few words (`timeout`, `refused: private address`, `redirect`, …).
  error text check (char_length(error) <= 300),
  -- The first bytes of the answer's body (1 KiB at most), as text.
  body_excerpt text check (char_length(body_excerpt) <= 1024),
  unique (delivery_id, series, attempt)
);

-- The platform tells the workspace's people when it switched an endpoint off.
alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check
  check (kind in ('listing.blocked', 'listing.pulled', 'listing.takedown', 'appeal.upheld', 'appeal.denied', 'webhook.disabled'));
