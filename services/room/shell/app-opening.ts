// Opening an app: a grant to its content origin, after its container copy (if any) is running.
// While the copy starts or waits for room, the panel says so (a card over the frame, in the
// room's look: never a page asked of an origin that may not answer) and the shell keeps asking.
// A room page comes from its own address instead. Part of shell.js.
import type { ReplyOf } from './room-hooks.js';
import { frameOf, type ShellState } from './room-state.js';

/** What a panel's state card says: a notice (CopyNotice's words), or words alone. */
type StateNotice = ReplyOf<'grant'> | string;

/** What one grant's answer means: the app's address, or a notice and when to ask again (or not). */
export type GrantStep = { open: { url: string; origin: string } } | { notice: ReplyOf<'grant'>; retryMs: number | null };

/** One grant's answer (`body` null: the connection was lost) read into what the shell does next. */
export function grantStep(ok: boolean, body: ReplyOf<'grant'> | null): GrantStep {
  if (body && ok && body.url) return { open: { url: body.url, origin: body.origin! } };
  const notice: ReplyOf<'grant'> = !body
    ? { title: 'Connection lost', message: 'The room lost its connection. Retrying…', waiting: true }
    : !ok
      ? { title: 'Could not open', message: body.message || 'This part of the demo could not be opened. Reload to try again.' }
      : body;
  if (!notice.waiting) return { notice, retryMs: null };
  // Queued: when the runner says (later the further back in line, jittered); starting: soon.
  return { notice, retryMs: notice.state === 'queued' ? ((notice as { retryMs?: number }).retryMs ?? 2000) : 500 };
}

/** The card over an app's frame while the app is not in front of the viewer: a title and the words. */
function stateText(appId: string, notice: StateNotice) {
  const el = document.querySelector<HTMLElement>(`[data-state-for="${appId}"]`);
  if (!el) return;
  const { title = '', message = '' } = typeof notice === 'string' ? { message: notice } : notice || {};
  el.querySelector('h2')!.textContent = title;
  el.querySelector('h2')!.hidden = !title;
  el.querySelector('p')!.textContent = message;
  el.hidden = !title && !message;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loaded = new Set<string>();
const opening: Record<string, Promise<void>> = {};

/** Opens an app once (again after a refusal); the promise settles when its page has loaded. */
export function load(state: ShellState, appId: string): Promise<void> {
  if (loaded.has(appId)) return opening[appId] || Promise.resolve();
  loaded.add(appId);
  stateText(appId, { message: 'Opening…' });
  opening[appId] = keepAsking(state, appId);
  return opening[appId];
}

async function keepAsking(state: ShellState, appId: string) {
  const frame = frameOf(appId)!;
  for (;;) {
    let step: GrantStep;
    try {
      const res = await state.post('grant', { app: appId });
      const body: ReplyOf<'grant'> = await res.json().catch(() => ({}));
      step = grantStep(res.ok, body);
    } catch {
      step = grantStep(false, null);
    }
    if ('open' in step) {
      state.origins[appId] = step.open.origin;
      const url = step.open.url;
      await new Promise((resolve) => {
        frame.addEventListener('load', resolve, { once: true });
        frame.src = url;
      });
      stateText(appId, '');
      return;
    }
    stateText(appId, step.notice);
    if (step.retryMs === null) {
      loaded.delete(appId);
      return;
    }
    await sleep(step.retryMs);
  }
}

/** A room page comes from its own address (the shell carries none), the first time its tab opens. */
export function loadPage(pageId: string) {
  const frame = document.querySelector<HTMLIFrameElement>(`iframe[data-page="${pageId}"]`);
  if (frame && !frame.getAttribute('src')) frame.src = frame.dataset.src!;
}
