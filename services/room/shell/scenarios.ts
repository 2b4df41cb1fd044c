// Scenario controls: each runs its declared call on the viewer's own copy, then reloads the app.
// The viewer sees what is happening (the scenario, the part under way, the seconds so far) over
// the app as it was, and the app's new page only once it has loaded. What the calls were and
// what they answered is the builder's concern (the rehearsal; a preview shows it): a viewer
// reads "Ready" or that it could not be done. Story steps run their calls here too. Part of
// shell.js.
import type { z } from 'zod';
import type { RunReply } from '@demo-rooms/contract';
import { closeMenus, closeTools } from './bar-menus.js';
import { watchFrame } from './frames.js';
import type { BodyOf, ReplyOf } from './room-hooks.js';
import { frameOf, type ShellState } from './room-state.js';

/** How long a scenario's "Ready: …" stays over the panel, and a failure's words. */
const OUTCOME_READY_MS = 4_000;
const OUTCOME_FAILED_MS = 12_000;

export type Outcome = NonNullable<z.infer<typeof RunReply>['outcomes']>[number];

/** Runs a scenario, the reset or a story step's calls on the viewer's copy. */
export async function run(state: ShellState, ask: BodyOf<'run'>): Promise<{ ok: boolean; outcomes: Outcome[] }> {
  const res = await state.post('run', ask);
  const body: ReplyOf<'run'> = await res.json().catch(() => ({}));
  return { ok: res.ok && !!body.ok, outcomes: body.outcomes || [] };
}

/** The calls and their answers, for the builder's preview only. */
export const callsDetail = (outcomes: Outcome[]) =>
  outcomes.map((o) => `${o.ok ? '✓' : '✗'} ${o.call}${o.status ? ` (${o.status})` : o.error ? ` (${o.error})` : ''}`);

/** What a control's button asks for, and what the viewer reads it as. */
export function controlAsk(run: string | undefined, id: string | undefined, label: string): { name: string; ask: BodyOf<'run'> } {
  return run === 'reset' ? { name: 'Resetting the demo', ask: { reset: true } } : { name: label.trim(), ask: { scenario: id! } };
}

/** A card over the app's frame: what runs, which part of it, and the seconds since it started. */
function progressOver(appId: string | undefined, title: string) {
  const el = appId ? document.querySelector<HTMLElement>(`[data-progress-for="${appId}"]`) : null;
  const started = performance.now();
  let part = '';
  const draw = () => {
    if (!el) return;
    el.querySelector('h2')!.textContent = title;
    el.querySelector('.progress-step')!.textContent = part;
    el.querySelector('.progress-time')!.textContent = `${Math.floor((performance.now() - started) / 1000)} s`;
  };
  const timer = setInterval(draw, 1000);
  if (el) el.hidden = false;
  if (el) el.parentElement!.classList.add('busy');
  return {
    step(text: string) {
      part = text;
      draw();
    },
    done() {
      clearInterval(timer);
      if (el) {
        el.hidden = true;
        el.parentElement!.classList.remove('busy');
      }
    },
  };
}

/**
 * Loads `url` into a new frame behind the app's frame and swaps them when it has loaded, so the
 * viewer keeps seeing the app as it was instead of a blank frame while the new page loads.
 */
function reloadBehind(state: ShellState, appId: string, url: string) {
  const old = frameOf(appId)!;
  const next = old.cloneNode(false) as HTMLIFrameElement;
  next.removeAttribute('src');
  next.classList.add('incoming');
  // First in the box: messages from the new page are its app's from now on (frameOf finds it).
  old.before(next);
  watchFrame(state, next);
  return new Promise<void>((resolve) => {
    next.addEventListener(
      'load',
      () => {
        old.remove();
        next.classList.remove('incoming');
        resolve();
      },
      { once: true },
    );
    next.src = url;
  });
}

export function setUpControls(state: ShellState) {
  const outcome = document.querySelector<HTMLElement>('.run-outcome')!;
  // What a run came to stays a while, then goes: it sits over the panel's title, and "Ready"
  // minutes later tells nothing (a failure stays longer, to be read).
  let fading: ReturnType<typeof setTimeout> | undefined;
  const say = (text: string, ms?: number) => {
    clearTimeout(fading);
    outcome.hidden = false;
    outcome.textContent = text;
    if (ms !== undefined) fading = setTimeout(() => (outcome.hidden = true), ms);
  };
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-run]')) {
    button.addEventListener('click', async () => {
      closeMenus();
      closeTools();
      if (button.disabled) return;
      button.disabled = true;
      const { name, ask } = controlAsk(button.dataset.run, button.dataset.id, button.textContent!);
      const app = state.data.apps.find((a) => a.id === state.current);
      const progress = progressOver(app && app.id, name);
      say(`${name}…`);
      try {
        progress.step('Step 1 of 2: setting up the demo');
        const { ok, outcomes } = await run(state, ask).catch(() => ({ ok: false, outcomes: [] }));
        if (!ok) {
          const detail = state.data.preview && outcomes.length ? ` ${callsDetail(outcomes.filter((o) => !o.ok)).join(', ')}` : '';
          say(`${name} could not be done. Try again in a moment.${detail}`, OUTCOME_FAILED_MS);
          return;
        }
        if (app && state.origins[app.id]) {
          progress.step('Step 2 of 2: opening the app');
          await reloadBehind(state, app.id, state.origins[app.id] + app.path);
        }
        say(`Ready: ${name}`, OUTCOME_READY_MS);
      } finally {
        progress.done();
        button.disabled = false;
      }
    });
  }
}
