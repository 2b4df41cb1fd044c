-- Slugs held after their projects' rows are gone (an account deleted with its workspaces): a
-- deleted project's slug stays held 30 days (spec 2.2) even when nothing of the project is left,
-- so nobody can take its room address at once and stand in for it.
create table slug_holds (
  slug text primary key,
  held_until timestamptz not null
);
