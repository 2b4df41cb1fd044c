-- Room pages keep the safe HTML made from them at addPage (rendered and sanitised once, off the
-- event loop), and its SHA-256 (base64url), which the room sends as the page's ETag. Pages stored
-- before this have neither: the room renders such a page the first time it is asked for and
-- writes the result back. Both are null together.
alter table room_pages
  add column html text,
  add column html_hash text,
  add constraint room_pages_html_whole check ((html is null) = (html_hash is null));
