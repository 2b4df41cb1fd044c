-- Issue 34: product events (an outbox written in the same transaction as the fact) and the
-- alerts built on them (docs/decisions/product-events-and-alerts.md).

-- What a viewer did that a builder hears of (services/contract/resources/product-event.ts).
-- Written by services/data beside the fact itself; never for a preview or a bot.
create table product_events (
  id bigserial primary key,
  workspace_id uuid not null references workspaces(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  link_id uuid references links(id) on delete set null,
  kind text not null check (kind in ('link.opened', 'visit.ended', 'next_step.answered', 'comment.left', 'link.stage_changed')),
  occurred_at timestamptz not null default clock_timestamp(),
  viewer_name text check (char_length(viewer_name) <= 200),
  -- Null until links carry a company (issue 34, personalised copies).
  viewer_company text check (char_length(viewer_company) <= 200),
  data jsonb not null default '{}'
);
create index product_events_workspace on product_events (workspace_id, id);
-- The fan-out looks at recent events only (a week): older ones are history.
create index product_events_recent on product_events (occurred_at, id);

-- Which consumer handled which event: each consumer handles each event once, even when ids
-- commit out of order (a later id may commit before an earlier one, so no high-water mark).
create table product_event_handled (
  consumer text not null check (char_length(consumer) <= 40),
  event_id bigint not null references product_events(id) on delete cascade,
  handled_at timestamptz not null default now(),
  primary key (consumer, event_id)
);
create index product_event_handled_event on product_event_handled (event_id);

-- How a person hears of each alert kind in a workspace; no row: instant.
create table alert_settings (
  workspace_id uuid not null,
  person_id uuid not null,
  kind text not null check (kind in ('link.opened', 'next_step.answered', 'comment.left')),
  mode text not null check (mode in ('instant', 'digest', 'off')),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, person_id, kind),
  foreign key (workspace_id, person_id) references memberships(workspace_id, person_id) on delete cascade
);

-- Each person's in-app alerts: one per alert-worthy event, read or not. `mail` says how it is
-- mailed (decided when it is made): at once, in the day's digest, or not at all.
create table alerts (
  id bigserial primary key,
  workspace_id uuid not null,
  person_id uuid not null,
  event_id bigint not null references product_events(id) on delete cascade,
  mail text not null check (mail in ('instant', 'digest', 'off', 'capped')),
  mailed_at timestamptz,
  read_at timestamptz,
  created_at timestamptz not null default now(),
  unique (person_id, event_id),
  foreign key (workspace_id, person_id) references memberships(workspace_id, person_id) on delete cascade
);
create index alerts_person on alerts (workspace_id, person_id, id desc);
create index alerts_unread on alerts (workspace_id, person_id) where read_at is null;
create index alerts_digest on alerts (person_id) where mail = 'digest' and mailed_at is null;

-- The mail cap: one mail per person, event kind and link (or project, for a public room) an hour.
-- A mail is sent only when this row could be taken (inserted, or moved on after an hour).
create table alert_mail_caps (
  person_id uuid not null references people(id) on delete cascade,
  subject_id uuid not null,
  kind text not null,
  sent_at timestamptz not null,
  primary key (person_id, subject_id, kind)
);
