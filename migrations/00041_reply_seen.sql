-- When the viewer last saw the builder's reply to their comment, in the room (issue 47, item 6):
-- a reply newer than this is new to them, and the room says so on its Comment control and in a
-- notice, without the Comment panel being opened. A reply that replaces one already seen is new again.
alter table comments add column reply_seen_at timestamptz;
