-- Personalised copies (issue 34, part 3): the company of a link's viewer, as the builder wrote it
-- on the link, and as the viewer typed it in the room's who-are-you. A build that opts in
-- (manifest `personalise`) gets name and company as request headers on its copy.
alter table links add column viewer_company text check (char_length(viewer_company) between 1 and 80);
alter table room_sessions add column viewer_company text check (char_length(viewer_company) between 1 and 80);
