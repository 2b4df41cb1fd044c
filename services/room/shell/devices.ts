// The device frame of the app in view: the viewer's pick, else the manifest's (or a story
// step's), as the class of the frame's box; the Device menu marks the one shown. Part of shell.js.
import { closeMenus, closeTools } from './bar-menus.js';
import type { ShellState } from './room-state.js';

/** Each app's device as the viewer picked it. */
export const picked: Record<string, string> = {};

/** The device a frame's box shows, by its class (`frame frame-<device>`). */
export const deviceOf = (className: string) => className.replace(/^frame frame-/, '');

function frameBox(appId: string) {
  const frame = document.querySelector(`iframe[data-app="${appId}"]`);
  return frame && frame.parentElement;
}

export function setDevice(state: ShellState, appId: string, device: string | null | undefined) {
  const box = frameBox(appId);
  if (box) box.className = `frame frame-${device || box.dataset.device}`;
  markDevice(state);
}

/** The Device menu: the device of the app in view checked, and the menu hidden without an app. */
export function markDevice(state: ShellState) {
  const box = state.current && frameBox(state.current);
  const now = box ? deviceOf(box.className) : null;
  for (const b of document.querySelectorAll<HTMLElement>('details.device [data-device]'))
    b.setAttribute('aria-checked', String(b.dataset.device === now));
  const menu = document.querySelector<HTMLElement>('details.device');
  if (menu) menu.hidden = !box;
}

export function setUpDevices(state: ShellState) {
  for (const b of document.querySelectorAll<HTMLElement>('details.device [data-device]')) {
    b.addEventListener('click', () => {
      if (state.current && frameBox(state.current)) {
        picked[state.current] = b.dataset.device!;
        setDevice(state, state.current, b.dataset.device);
      }
      closeMenus();
      closeTools();
    });
  }
  markDevice(state);
}
