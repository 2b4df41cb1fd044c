-- A session's copies, ended ones included (issue 43). Every call of a viewer reads its session's
-- latest copy (`copyOfSession`, `hostOfSession`, the admission's attempt check), and the partial
-- index on live copies cannot answer for a session whose copies have all ended: each such read
-- scanned the whole table, 40 ms at 10,000 rows, and a crowd of viewers made thousands a second.
create index runner_copies_session_latest on runner_copies (session_id, asked_at desc) where session_id is not null;
