-- A new cover of a listed (or pending) card is held back until an operator approves it (issue 28,
-- M5): the public listing keeps the cover approved before. The held one is stored at
-- covers/<project>/<hash> as the shown one is; cover_pending now says only whether one is held.
alter table cards
  add column held_cover_hash text,
  add column held_cover_type text,
  add column held_cover_at timestamptz,
  drop column cover_pending,
  add column cover_pending boolean generated always as (held_cover_hash is not null) stored;
