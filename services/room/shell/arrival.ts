// The viewer's way in: the arrival (the visit starts), the note of a personalised build, and the
// who-are-you prompt, asked once per session, with an email when the project requires one.
// Part of shell.js.
import type { ShellData } from '@demo-rooms/contract';
import type { BodyOf, ReplyOf } from './room-hooks.js';
import type { ShellState } from './room-state.js';

// The room really ran in a browser: the visit starts now (a link-preview fetch never gets here).
// A room whose seats were all taken since the page came says so: the address, asked again,
// answers Demo full.
export function arrive(state: ShellState) {
  if (state.data.preview) return;
  state
    .post('arrive', {})
    .then((res) => res.json())
    .then((body: ReplyOf<'arrive'> | null) => {
      if (body && body.full) location.reload();
    })
    .catch(() => {});
}

// A personalised build: the viewer is told once per session (remembered in this browser).
export function personalNote(state: ShellState) {
  const note = document.getElementById('personal-note');
  if (!note) return;
  const seen = `pp-personal-note:${state.data.sessionId}`;
  const remembered = () => {
    try {
      return localStorage.getItem(seen) === '1';
    } catch {
      return false;
    }
  };
  if (!remembered()) note.hidden = false;
  document.getElementById('personal-note-dismiss')!.addEventListener('click', () => {
    note.hidden = true;
    try {
      localStorage.setItem(seen, '1');
    } catch {
      // Storage refused (a private window's quota): the note goes for this page only.
    }
  });
}

/** The hello's body from the prompt's fields: the email and company only when asked (and given). */
export function helloBody(ask: ShellData['ask'], field: (name: string) => string): BodyOf<'hello'> {
  const body: BodyOf<'hello'> = { name: field('name') };
  if (ask.email) body.email = field('email');
  if (ask.company && field('company').trim()) body.company = field('company');
  return body;
}

/** What the prompt says of a refused hello: its first issue. */
export const helloProblem = (problem: ReplyOf<'hello'>) =>
  (problem.issues && problem.issues[0] && problem.issues[0].message) || 'Please check your answer.';

/** Asks who the viewer is when the room wants to know, then calls `enter`; else enters at once. */
export function whoAreYou(state: ShellState, enter: () => void) {
  const { data } = state;
  const dialog = document.getElementById('who') as HTMLDialogElement;
  if (!data.ask.name && !data.ask.email) return enter();
  const form = document.getElementById('who-form') as HTMLFormElement;
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
  field('name').value = data.ask.suggestedName || '';
  field('company').value = data.ask.suggestedCompany || '';
  form.querySelector<HTMLElement>('.company')!.hidden = !data.ask.company;
  form.querySelector<HTMLElement>('.email')!.hidden = !data.ask.email;
  field('email').required = data.ask.email;
  field('name').required = true;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const res = await state.post(
      'hello',
      helloBody(data.ask, (name) => field(name).value),
    );
    if (res.ok) {
      // Saying who you are arrives too (if the first arrival was lost): it may find the room full.
      if (((await res.json().catch(() => ({}))) as ReplyOf<'hello'>).full) {
        location.reload();
        return;
      }
      dialog.close();
      enter();
      return;
    }
    form.querySelector('.error')!.textContent = helloProblem(await res.json().catch(() => ({})));
  });
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.showModal();
}
