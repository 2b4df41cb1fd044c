// The room shell: tabs, frames, the who-are-you prompt and the time beacon. It runs on the
// platform origin and never touches build content, which lives in frames on the content origin.
// Built by Vite into one self-contained classic script (services/room/dist/shell.js,
// infra/local/room-scripts.mjs); the page (viewer/shell-page.ts) renders the elements it finds.
// Its parts, each a module beside this one:
//   room-state.ts   what the parts share (the page's data, the calls, the tab in view, origins)
//   visit-clock.ts  the visible seconds per tab; beat.ts sends them (the beat, beacons)
//   tabs.ts         the tabs; app-opening.ts opens an app (the grant loop) or a page
//   frames.ts       each frame's loads and screen, and what voice.js is handed
//   bar-menus.ts    the bar's menus and Menu button; devices.ts the device frame
//   scenarios.ts    the scenario controls (runs, the progress card, the reload behind)
//   story.ts        the story runner (story-step.ts its pure rules), pointing.ts the ring,
//                   open-path.ts a step's page
//   arrival.ts      the arrival, the personal note and the who-are-you prompt
import type { ShellData } from '@demo-rooms/contract';
import { arrive, personalNote, whoAreYou } from './arrival.js';
import { setUpMenus, setUpTools } from './bar-menus.js';
import { startBeat } from './beat.js';
import { setUpDevices } from './devices.js';
import { roomHooks, watchFrames } from './frames.js';
import { listenForRings } from './pointing.js';
import { createShellState, type ShellState } from './room-state.js';
import { setUpControls } from './scenarios.js';
import { setUpStory } from './story.js';
import { firstTab, setUpTabs, show } from './tabs.js';

/** The viewer is in: the first tab shows, the beat starts, the bar and the story work, the voice joins. */
function start(state: ShellState) {
  show(state, firstTab(state, location.hash));
  startBeat(state);
  setUpMenus();
  setUpTools();
  setUpDevices(state);
  setUpControls(state);
  setUpStory(state);
  if (window.ppVoice) window.ppVoice(roomHooks(state));
}

const data: ShellData = JSON.parse(document.getElementById('room-data')!.textContent!);
const state = createShellState(data);
setUpTabs(state);
watchFrames(state);
listenForRings(state);
arrive(state);
personalNote(state);
whoAreYou(state, () => start(state));
