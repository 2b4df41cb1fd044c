// The one-time email prompt, on the first comment or answer of a session without one. Part of
// voice.js.
import type { RoomHooks } from '../room-hooks.js';

export function askEmail(room: RoomHooks) {
  const dialog = document.getElementById('email-ask') as HTMLDialogElement | null;
  if (!dialog || dialog.open) return;
  const form = document.getElementById('email-form') as HTMLFormElement;
  form.onsubmit = async (event) => {
    event.preventDefault();
    const email = (form.elements.namedItem('email') as HTMLInputElement).value.trim();
    if (!email) return dialog.close();
    const res = await room.post('email', { email });
    if (res.ok) return dialog.close();
    form.querySelector('.error')!.textContent = 'Please check the address.';
  };
  form.querySelector<HTMLElement>('.skip')!.onclick = () => dialog.close();
  dialog.showModal();
}
