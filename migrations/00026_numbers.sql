-- Issue 29, item 7: fields the web app had to work around (docs/decisions/analytics.md).

-- A passkey's name: given when it is registered, renamable; null for passkeys made before.
alter table passkeys add column name text check (char_length(name) between 1 and 60);

-- When a link was last opened (a visit started through it); opened_at stays the first time.
alter table links add column last_opened_at timestamptz;
update links l set last_opened_at = v.at
  from (select link_id, max(started_at) as at from visits where link_id is not null and not preview group by link_id) v
  where v.link_id = l.id;

-- When a session was last used, moved on at most once a minute by the request that uses it.
alter table sessions add column last_used_at timestamptz;
