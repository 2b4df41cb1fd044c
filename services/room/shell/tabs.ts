// The room's tabs: one panel in view at a time, an app's opened (app-opening.ts) or a page's
// loaded the first time its tab is shown; the arrow keys move along the tabs. Part of shell.js.
import { load, loadPage } from './app-opening.js';
import { markDevice } from './devices.js';
import { account, fire, type ShellState } from './room-state.js';

/** The tab an arrow key moves to from `index` among `count`, round the ends; null for another key. */
export function tabAfter(index: number, key: string, count: number): number | null {
  const step = key === 'ArrowRight' ? 1 : key === 'ArrowLeft' ? -1 : 0;
  if (!step) return null;
  return (index + step + count) % count;
}

/** Shows the tab `id`: the time so far goes to the tab that was in view. */
export function show(state: ShellState, id: string) {
  account(state);
  state.current = id;
  for (const tab of state.tabs) {
    const on = tab.dataset.tab === id;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(`panel-${tab.dataset.tab}`)!.hidden = !on;
  }
  const tab = state.tabs.find((t) => t.dataset.tab === id);
  if (tab && tab.dataset.kind === 'app') load(state, id);
  if (tab && tab.dataset.kind === 'page') loadPage(id);
  markDevice(state);
  fire(state, 'show', id);
}

export function setUpTabs(state: ShellState) {
  const { tabs } = state;
  for (const tab of tabs) {
    tab.addEventListener('click', () => show(state, tab.dataset.tab!));
    tab.addEventListener('keydown', (event) => {
      const at = tabAfter(tabs.indexOf(tab), event.key, tabs.length);
      if (at === null) return;
      const next = tabs[at];
      next.focus();
      show(state, next.dataset.tab!);
    });
  }
}

/** The tab the address's hash names, else the room's first. */
export function firstTab(state: ShellState, hash: string) {
  const wanted = hash.slice(1);
  // `opened` is null only in a room of no tab, where nothing is shown.
  return state.tabs.some((t) => t.dataset.tab === wanted) ? wanted : state.data.opened!;
}
