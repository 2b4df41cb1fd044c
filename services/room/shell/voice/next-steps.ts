// What happens next: the panel of the steps the builder offers (a question, a colleague, a
// meeting, yes, later, no), one answer per step per visit. Part of voice.js.
import type { BodyOf, ReplyOf, RoomHooks } from '../room-hooks.js';
import { askEmail } from './email-prompt.js';

type Kind = BodyOf<'answer'>['step'];

/** What the panel says once an answer went: thanks, or that a preview records nothing. */
export function answeredText(answer: ReplyOf<'answer'>, sender: string | null): string {
  return answer.recorded ? `Thank you. ${sender || 'The sender'} will see your answer.` : 'Preview: not recorded.';
}

/** A refusal's words: its first issue, else a try again. */
export const refusalText = (body: ReplyOf<'answer'>) =>
  (body.issues && body.issues[0] && body.issues[0].message) || 'That did not go through. Try again.';

/** Sets up the panel; `opened` is called when it opens (the Comment panel closes). Returns its opener. */
export function nextSteps(room: RoomHooks, opened: () => void): { open: (open: boolean) => void } {
  const nextPanel = document.getElementById('next');
  const nextToggle = document.getElementById('next-toggle')!;
  function open(shown: boolean) {
    if (!nextPanel) return;
    nextPanel.hidden = !shown;
    nextToggle.setAttribute('aria-expanded', String(shown));
    if (shown) opened();
  }
  if (!nextPanel) return { open };
  const panel = nextPanel;
  function markAnswered(kind: string) {
    const button = panel.querySelector(`.step-answer[data-kind="${kind}"]`);
    if (!button) return;
    button.classList.add('answered');
    button.setAttribute('aria-pressed', 'true');
    const form = panel.querySelector<HTMLElement>(`.step-form[data-kind="${kind}"]`);
    if (form) form.hidden = true;
  }
  const sending = new Set<string>();
  async function answer(kind: Kind, detail: Record<string, string> | null) {
    // One answer per step per visit: the server holds to it too; this only saves a request.
    if (sending.has(kind)) return;
    sending.add(kind);
    const outcome = panel.querySelector('.next-outcome')!;
    try {
      const res = await room.post('answer', detail ? { step: kind, detail } : { step: kind });
      const body: ReplyOf<'answer'> = await res.json().catch(() => ({}));
      if (!res.ok) {
        outcome.textContent = refusalText(body);
        return;
      }
      markAnswered(kind);
      outcome.textContent = answeredText(body, room.data.sender);
      if (body.askEmail) askEmail(room);
    } finally {
      sending.delete(kind);
    }
  }
  nextToggle.addEventListener('click', () => open(panel.hidden));
  panel.querySelector('.close')!.addEventListener('click', () => open(false));
  for (const kind of room.data.voice.answered) markAnswered(kind);
  for (const button of panel.querySelectorAll<HTMLElement>('.step-answer')) {
    button.addEventListener('click', () => {
      const kind = button.dataset.kind as Kind;
      const form = panel.querySelector<HTMLElement>(`.step-form[data-kind="${kind}"]`);
      if (form) {
        form.hidden = !form.hidden;
        if (!form.hidden) form.querySelector<HTMLElement>('textarea, input')!.focus();
        return;
      }
      // The booking page opens at once, in the click, so no popup blocker stops it.
      if (kind === 'meeting' && button.dataset.url) window.open(button.dataset.url, '_blank', 'noopener');
      answer(kind, null);
    });
  }
  for (const form of panel.querySelectorAll<HTMLFormElement>('.step-form')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const fields = Array.from(form.elements) as HTMLInputElement[];
      const detail = Object.fromEntries(fields.filter((e) => e.name).map((e) => [e.name, e.value.trim()]));
      answer(form.dataset.kind as Kind, detail);
    });
  }
  return { open };
}
