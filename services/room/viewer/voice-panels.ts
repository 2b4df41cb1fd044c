import type { NextStep, VoiceData } from '@demo-rooms/contract';
import { escapeHtml } from '../html.js';

// The parts of the shell through which a viewer answers (issue 14): the What happens next panel,
// the comment mode's panel with the viewer's own comments and the builder's replies, and the
// one-time email prompt. shell.js brings them to life.

export const nextButton = '<button type="button" id="next-toggle" aria-expanded="false" aria-controls="next">What happens next</button>';

/** The Comment button; shell/reply-notice.ts puts the count of new replies on it. */
export const commentButton = '<button type="button" id="comment-toggle" aria-pressed="false" aria-controls="comments">Comment</button>';

/** Each offered step is a button with its own words; the ones that need words open a small form. */
export const nextPanel = (voice: VoiceData, preview: boolean) => `
<aside id="next" class="side-panel" hidden aria-label="What happens next">
  <div class="panel-head"><h2>What happens next?</h2><button type="button" class="close" aria-label="Close What happens next">Close</button></div>
  ${preview ? '<p class="hint">This is a preview: answers are not recorded.</p>' : ''}
  <ul class="steps">${voice.steps.map(stepItem).join('')}</ul>
  <p class="next-outcome" role="status"></p>
</aside>`;

const stepItem = (step: NextStep) => `
<li data-kind="${step.kind}">
  <button type="button" class="step-answer" data-kind="${step.kind}"${step.url ? ` data-url="${escapeHtml(step.url)}"` : ''}>${escapeHtml(step.label)}</button>
  ${step.prompt ? `<p class="hint">${escapeHtml(step.prompt)}</p>` : ''}
  ${stepForm(step)}
</li>`;

/** The words a question or a colleague needs; the other steps are one click. */
function stepForm(step: NextStep): string {
  if (step.kind === 'question') {
    return `<form class="step-form" data-kind="question" hidden>
  <label>Your question <textarea name="text" maxlength="2000" required rows="3"></textarea></label>
  <button type="submit">Send the question</button></form>`;
  }
  if (step.kind === 'colleague') {
    return `<form class="step-form" data-kind="colleague" hidden>
  <label>Their name <input name="name" maxlength="80" required autocomplete="off"></label>
  <label>Their email <input name="email" type="email" maxlength="254" required autocomplete="off"></label>
  <button type="submit">Add them</button></form>`;
  }
  return '';
}

/** Comment mode: what to do, the form for the pinned comment, and the viewer's comments with replies. */
export const commentsPanel = (preview: boolean) => `
<aside id="comments" class="side-panel" hidden aria-label="Comments">
  <div class="panel-head"><h2>Comment on this screen</h2><button type="button" class="close" aria-label="Close comments">Close</button></div>
  <p class="hint">Click a point or drag over an area of the app, then write your comment.${preview ? ' This is a preview: comments are not recorded.' : ''}</p>
  <form id="comment-form" hidden>
    <label>Your comment <textarea name="body" maxlength="2000" required rows="4"></textarea></label>
    <p class="error" role="alert"></p>
    <div class="row"><button type="submit">Send</button><button type="button" class="cancel">Cancel</button></div>
  </form>
  <p class="comment-outcome" role="status"></p>
  <h3>Your comments</h3>
  <ol class="my-comments"></ol>
</aside>`;

/** Asked once, on the first comment or answer of a session, when the room has no email yet. */
export const emailDialog = (sender: string | null) => `
<dialog id="email-ask">
  <form method="dialog" id="email-form">
    <h2>Where can ${sender ? escapeHtml(sender) : 'they'} answer you?</h2>
    <p>Leave your email so ${sender ? escapeHtml(sender) : 'the sender'} can reply. It is not checked, and nothing is sent to it from here.</p>
    <label>Your email <input name="email" type="email" maxlength="254" autocomplete="email"></label>
    <p class="error" role="alert"></p>
    <div class="row"><button type="submit">Save</button><button type="button" class="skip">Not now</button></div>
  </form>
</dialog>`;
