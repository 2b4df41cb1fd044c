-- The listing checks of a static build's pages (issue 28, H3): run once per build, off the api's
-- event loop, and kept here so that listing and rehearsal read them instead of parsing the pages
-- again. A build's files never change, so neither do its findings.
create table build_page_checks (
  build_id uuid primary key references builds(id) on delete cascade,
  -- {part, reason, detail} each, as cards.blocked and cards.warnings.
  blocked jsonb not null default '[]',
  warnings jsonb not null default '[]',
  -- What was read: HTML pages and their bytes, within the caps of page-checks.ts.
  pages_read integer not null,
  bytes_read bigint not null,
  checked_at timestamptz not null default now()
);
