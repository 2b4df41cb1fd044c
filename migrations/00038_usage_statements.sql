-- Issue 46: statements billing can read (docs/decisions/usage-and-billing.md). When the
-- usage roll-up makes a workspace's month final, its statement is frozen here in the same
-- transaction: a closed month never changes. A later correction is a line of the next open month
-- that names the month and the copy it corrects.

-- The projects of a closed month: their name then and their viewers' time.
create table usage_statement_projects (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  -- No foreign key: a project deleted (and purged) since keeps its past statements.
  project_id uuid not null,
  name text not null,
  viewer_seconds double precision not null,
  primary key (workspace_id, month, project_id)
);

-- One line per copy of a closed month (corrects_month null), and one per correction it lists of
-- an earlier closed month's copy. Seconds as computed (float8, not rounded), so a month's lines sum
-- to what usage_months holds.
create table usage_statement_lines (
  workspace_id uuid not null references workspaces(id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  -- No foreign key: copy records go with their project; the statement stays.
  copy_id uuid not null,
  project_id uuid not null,
  started_at timestamptz not null,
  ended_at timestamptz,
  seconds double precision not null,
  -- The copy_events (copy_id, seq) that open and close the counted spans.
  event_seqs integer[] not null,
  corrects_month date check (corrects_month < month),
  unique nulls not distinct (workspace_id, month, copy_id, corrects_month)
);

-- A month closing is a workspace's event, of no project (webhooks: usage.month_closed).
alter table product_events alter column project_id drop not null;
alter table product_events drop constraint product_events_kind_check;
alter table product_events add constraint product_events_kind_check
  check (kind in ('link.opened', 'visit.ended', 'next_step.answered', 'comment.left', 'link.stage_changed', 'usage.month_closed'));
alter table product_events add constraint product_events_project_check
  check (project_id is not null or kind = 'usage.month_closed');
