// The guided story: a step's calls run first, in order, then its app opens at its page, in the
// step's device, with its element ringed. The card offers no Back on the first step and no Next
// on the last, which has Done. The last step offers What happens next; it opens only when the
// viewer asks, and "Not now" (or closing the panel) is kept for the rest of the session, on every
// step and tab (story-step.ts). Part of shell.js.
import type { ShellData } from '@demo-rooms/contract';
import { load } from './app-opening.js';
import { closeTools } from './bar-menus.js';
import { picked, setDevice } from './devices.js';
import { openPath } from './open-path.js';
import { ringFor } from './pointing.js';
import type { ShellState } from './room-state.js';
import { callsDetail, type Outcome, run } from './scenarios.js';
import { offerMemory, offerShown, stepCard } from './story-step.js';
import { show } from './tabs.js';

type Step = ShellData['story'][number];

/** The card's parts (the page renders them; viewer/shell-page.ts). */
function storyCard(panel: HTMLElement) {
  return {
    status: panel.querySelector<HTMLElement>('.step-status')!,
    calls: panel.querySelector<HTMLElement>('.step-calls')!,
    back: panel.querySelector<HTMLElement>('[data-step="-1"]')!,
    next: panel.querySelector<HTMLElement>('[data-step="1"]')!,
    // At the last step, Done closes the card (on a phone it covers much of the app).
    done: panel.querySelector<HTMLElement>('.story-done')!,
    offer: panel.querySelector<HTMLElement>('.next-offer'),
  };
}
type Card = ReturnType<typeof storyCard>;

export function setUpStory(state: ShellState) {
  const panel = document.getElementById('story');
  const toggle = document.getElementById('story-toggle');
  if (!panel || !toggle) return;
  const { data } = state;
  const card = storyCard(panel);
  const nextToggle = document.getElementById('next-toggle');
  const nextPanel = document.getElementById('next');
  const memory = offerMemory(() => sessionStorage, data.sessionId);
  let at = -1;
  let dismissed = memory.dismissed();
  function showOffer() {
    const shown = offerShown(at === data.story.length - 1, dismissed);
    if (card.offer) card.offer.hidden = !shown;
    if (nextToggle) nextToggle.classList.toggle('offered', shown);
  }
  const putOfferAway = () => {
    dismissed = true;
    memory.dismiss();
    showOffer();
  };
  async function go(index: number) {
    const view = stepCard(index, data.story.length);
    at = view.at;
    const step = data.story[at];
    ringFor(state, null);
    drawStep(panel!, card, step, view);
    showOffer();
    if (!(await runStep(state, card, step))) return;
    await openStep(state, step);
  }
  const showCard = (shown: boolean) => {
    panel.hidden = !shown;
    toggle.setAttribute('aria-expanded', String(shown));
    document.body.classList.toggle('touring', shown);
  };
  toggle.addEventListener('click', () => {
    closeTools();
    showCard(panel.hidden);
    if (!panel.hidden && at < 0) go(0);
  });
  card.done.addEventListener('click', () => showCard(false));
  for (const b of panel.querySelectorAll<HTMLElement>('[data-step]')) b.addEventListener('click', () => go(at + Number(b.dataset.step)));
  if (card.offer) {
    card.offer.querySelector('.offer-open')!.addEventListener('click', () => {
      if (nextPanel && nextPanel.hidden) nextToggle!.click();
    });
    card.offer.querySelector('.offer-dismiss')!.addEventListener('click', putOfferAway);
  }
  // Closing What happens next, however it was opened, is an answer to the offer too.
  if (nextPanel) {
    new MutationObserver((records) => {
      // Open (no hidden attribute before) to closed: the viewer has seen it and put it away.
      const closed = records.some((r) => r.oldValue === null) && nextPanel.hidden;
      if (!closed || dismissed) return;
      putOfferAway();
    }).observe(nextPanel, { attributes: true, attributeFilter: ['hidden'], attributeOldValue: true });
  }
}

const say = (card: Card, text: string, failed = false) => {
  card.status.textContent = text;
  card.status.hidden = !text;
  card.status.classList.toggle('failed', failed);
};

/** The step's words on the card, and its buttons. */
function drawStep(panel: HTMLElement, card: Card, step: Step, view: ReturnType<typeof stepCard>) {
  panel.querySelector('.step-count')!.textContent = view.count;
  panel.querySelector('.step-title')!.textContent = step.title;
  panel.querySelector('.step-say')!.textContent = step.say;
  card.back.hidden = view.backHidden;
  card.next.hidden = view.nextHidden;
  card.done.hidden = !card.next.hidden;
  card.calls.textContent = '';
  card.calls.hidden = true;
  say(card, '');
}

/**
 * The step's calls on the viewer's copy: awaited when the step has any (its app opens only if
 * they went), else only said to the room (the step was reached). Whether the step goes on.
 */
async function runStep(state: ShellState, card: Card, step: Step): Promise<boolean> {
  if (!step.runs) {
    run(state, { step: step.id }).catch(() => {});
    return true;
  }
  say(card, 'Preparing this step…');
  const { ok, outcomes } = await run(state, { step: step.id }).catch(() => ({ ok: false, outcomes: [] as Outcome[] }));
  say(card, ok ? '' : 'This step could not be prepared. Try it again in a moment.', !ok);
  // The calls and their answers: the builder's, in their own preview.
  if (state.data.preview && outcomes.length) {
    for (const [i, text] of callsDetail(outcomes).entries()) {
      const li = document.createElement('li');
      li.textContent = text;
      li.className = outcomes[i].ok ? 'ok' : 'failed';
      card.calls.append(li);
    }
    card.calls.hidden = false;
  }
  return ok;
}

/** The step's app in view, in its device, at its page, with its element ringed. */
async function openStep(state: ShellState, step: Step) {
  show(state, step.app);
  setDevice(state, step.app, step.device || picked[step.app]);
  await load(state, step.app);
  if (step.path && state.origins[step.app]) openPath(state, step.app, step.path);
  ringFor(state, step.point ? { app: step.app, selector: step.point } : null);
}
