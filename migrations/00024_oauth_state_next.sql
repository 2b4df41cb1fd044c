-- Where a provider sign-in returns to (issue 29): the same-origin path the sign-in page was asked
-- to go on to (`/login?next=`), kept with the state so the callback can send the browser there
-- instead of to `/`. Checked as a same-origin path when kept and again when followed.
alter table oauth_states add column next_path text;
