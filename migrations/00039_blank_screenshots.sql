-- A comment's picture that came out one colour all over is kept as no picture, with the note
-- `blank` (services/core/rules/images.ts judgeBlank; issue 47, item 2).
alter table comments drop constraint if exists comments_screenshot_note_check;
alter table comments add constraint comments_screenshot_note_check
  check (screenshot_note in ('removed', 'no-answer', 'timeout', 'blocked', 'tainted', 'too-large', 'failed', 'blank'));
