// The room shell: tabs, frames, the who-are-you prompt and the time beacon. It runs on the
// platform origin and never touches build content, which lives in frames on the content origin.
// Built by Vite into one self-contained classic script (services/room/dist/shell.js,
// infra/local/room-scripts.mjs); the page (viewer/shell-page.ts) renders the elements it finds.
import type { RunReply, ShellData } from '../../contract/resources/room-shell.js';
import type { FrameRect, RoomMessage } from '../content/frame-messages.js';
import type { BodyOf, ReplyOf, RoomHooks, ShellCall } from './room-hooks.js';
import type { z } from 'zod';

/** What a panel's state card says: a notice (CopyNotice's words), or words alone. */
/** How long a hash-only step waits to hear the app took the hash before it loads the step's address. */
const HASH_TAKEN_MS = 2_000;
/** How long a scenario's "Ready: …" stays over the panel, and a failure's words. */
const OUTCOME_READY_MS = 4_000;
const OUTCOME_FAILED_MS = 12_000;

type StateNotice = ReplyOf<'grant'> | string;
type Outcome = NonNullable<z.infer<typeof RunReply>['outcomes']>[number];

(() => {
  const data: ShellData = JSON.parse(document.getElementById('room-data')!.textContent!);
  const base = `/room/${data.sessionId}`;
  const tabs = Array.from(document.querySelectorAll<HTMLElement>('[role="tab"]'));
  const loaded = new Set<string>();
  let current: string | null = null;

  // Visible seconds per app or page, counted as the visit goes and flushed every few seconds,
  // so listVisits shows a visit under way and a quiet end lands near the viewer's last moment.
  // Only visible time counts; a hidden room sends nothing, so a forgotten background tab goes
  // quiet and its visit ends on the server (quietSeconds) at its last flush.
  const flushMs = data.flushMs;
  const pending: Record<string, number> = {};
  let since = performance.now();
  let visible = document.visibilityState === 'visible';

  const post = <C extends ShellCall>(path: C, body: BodyOf<C>) =>
    fetch(`${base}/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Adds the time since the last call to the tab in view, if the room was visible all along. */
  function account() {
    const now = performance.now();
    if (current && visible) pending[current] = (pending[current] || 0) + (now - since) / 1000;
    since = now;
    visible = document.visibilityState === 'visible';
  }

  function takeTime() {
    account();
    const time: Record<string, number> = {};
    for (const [key, seconds] of Object.entries(pending)) {
      const whole = Math.floor(seconds);
      if (whole > 0) {
        time[key] = whole;
        pending[key] = seconds - whole;
      }
    }
    return { time };
  }

  // What the frame shows while its app is not in front of the viewer: a card in the room's look,
  // a title and the words, over the frame (never a page asked of an origin that may not answer).
  function stateText(appId: string, notice: StateNotice) {
    const el = document.querySelector<HTMLElement>(`[data-state-for="${appId}"]`);
    if (!el) return;
    const { title = '', message = '' } = typeof notice === 'string' ? { message: notice } : notice || {};
    el.querySelector('h2')!.textContent = title;
    el.querySelector('h2')!.hidden = !title;
    el.querySelector('p')!.textContent = message;
    el.hidden = !title && !message;
  }

  const origins: Record<string, string> = {};
  const opening: Record<string, Promise<void>> = {};
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // Opens an app: a grant to its content origin, after its container copy (if any) is running.
  // While the copy starts or waits for room, the panel says so and the shell keeps asking.
  function load(appId: string): Promise<void> {
    if (loaded.has(appId)) return opening[appId] || Promise.resolve();
    loaded.add(appId);
    const frame = document.querySelector<HTMLIFrameElement>(`iframe[data-app="${appId}"]`)!;
    stateText(appId, { message: 'Opening…' });
    opening[appId] = (async () => {
      for (;;) {
        let body: ReplyOf<'grant'> = {};
        try {
          const res = await post('grant', { app: appId });
          body = await res.json().catch(() => ({}));
          if (res.ok && body.url) {
            origins[appId] = body.origin!;
            const url = body.url;
            await new Promise((resolve) => {
              frame.addEventListener('load', resolve, { once: true });
              frame.src = url;
            });
            stateText(appId, '');
            return;
          }
          if (!res.ok)
            body = { title: 'Could not open', message: body.message || 'This part of the demo could not be opened. Reload to try again.' };
        } catch {
          body = { title: 'Connection lost', message: 'The room lost its connection. Retrying…', waiting: true };
        }
        stateText(appId, body);
        if (!body.waiting) {
          loaded.delete(appId);
          return;
        }
        // Queued: when the runner says (later the further back in line, jittered); starting: soon.
        await sleep(body.state === 'queued' ? ((body as { retryMs?: number }).retryMs ?? 2000) : 500);
      }
    })();
    return opening[appId];
  }

  // A room page comes from its own address (the shell carries none), the first time its tab opens.
  function loadPage(pageId: string) {
    const frame = document.querySelector<HTMLIFrameElement>(`iframe[data-page="${pageId}"]`);
    if (frame && !frame.getAttribute('src')) frame.src = frame.dataset.src!;
  }

  function show(id: string) {
    account();
    current = id;
    for (const tab of tabs) {
      const on = tab.dataset.tab === id;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(`panel-${tab.dataset.tab}`)!.hidden = !on;
    }
    const tab = tabs.find((t) => t.dataset.tab === id);
    if (tab && tab.dataset.kind === 'app') load(id);
    if (tab && tab.dataset.kind === 'page') loadPage(id);
    markDevice();
    fire('show', id);
  }

  for (const tab of tabs) {
    tab.addEventListener('click', () => show(tab.dataset.tab!));
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      next.focus();
      show(next.dataset.tab!);
    });
  }

  function start() {
    const wanted = location.hash.slice(1);
    // `opened` is null only in a room of no tab, where nothing is shown.
    show(tabs.some((t) => t.dataset.tab === wanted) ? wanted : data.opened!);
    const withCopy = (body: BodyOf<'beat'>): BodyOf<'beat'> => (data.kind === 'container' ? { ...body, copy: true } : body);
    const beacon = (path: 'beat' | 'leave', extra: Partial<BodyOf<'beat'>> = {}) =>
      navigator.sendBeacon(`${base}/${path}`, JSON.stringify({ ...withCopy(takeTime()), ...extra }));
    // A tab back in view says so with its next flush (the time outside the room ends there).
    let shown = false;
    setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      post('beat', { ...withCopy(takeTime()), ...(shown ? { shown: true } : {}) }).catch(() => {});
      shown = false;
    }, flushMs);
    // Hidden: what was seen so far goes now, by beacon, as the page may never come back.
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') beacon('beat', { hidden: true });
      else {
        account();
        shown = true;
      }
    });
    addEventListener('pagehide', () => beacon('leave'));
    // Back from the browser's page cache: the visit ended at pagehide; the next flush starts another.
    addEventListener('pageshow', (event: PageTransitionEvent) => {
      if (event.persisted) account();
    });
    setUpMenus();
    setUpTools();
    setUpDevices();
    setUpControls();
    setUpStory();
    if (window.ppVoice) window.ppVoice(roomHooks());
  }

  // What the viewer's voice (voice.js) needs of the shell: the frames, their origins, the app in
  // view, and word of a frame's load and a tab shown.
  const hooks: { frameLoad: ((app: string) => void)[]; show: ((id: string) => void)[] } = { frameLoad: [], show: [] };
  const fire = (name: keyof typeof hooks, arg: string) => hooks[name].forEach((f) => f(arg));
  // Each app frame's loads, and the screen its page says it is on (frame-helper.js): a page that
  // loaded without saying so (no helper in it) leaves no screen behind from the page before.
  const screens: Record<string, string> = {};
  const readySinceLoad: Record<string, boolean> = {};
  function watchFrame(frame: HTMLIFrameElement) {
    frame.addEventListener('load', () => {
      const app = frame.dataset.app!;
      if (!readySinceLoad[app]) delete screens[app];
      readySinceLoad[app] = false;
      fire('frameLoad', app);
    });
  }
  for (const frame of document.querySelectorAll<HTMLIFrameElement>('iframe[data-app]')) watchFrame(frame);
  window.addEventListener('message', (event) => {
    const app = data.apps.find((a) => origins[a.id] === event.origin && frameOf(a.id) && frameOf(a.id)!.contentWindow === event.source);
    const message: { type?: unknown; screen?: unknown } = event.data || {};
    if (!app || (message.type !== 'pp:ready' && message.type !== 'pp:screen') || typeof message.screen !== 'string') return;
    screens[app.id] = message.screen;
    readySinceLoad[app.id] = true;
  });
  function roomHooks(): RoomHooks {
    return {
      data,
      post,
      frameOf,
      originOf: (app) => origins[app] || null,
      appPath: (app) => (data.apps.find((a) => a.id === app) || {}).path || null,
      currentApp: () => (data.apps.some((a) => a.id === current) ? current : null),
      /** The app whose frame `source` is, when the message came from its origin. */
      appOfWindow: (source, origin) => {
        const app = data.apps.find((a) => origins[a.id] === origin && frameOf(a.id) && frameOf(a.id)!.contentWindow === source);
        return app ? app.id : null;
      },
      onFrameLoad: (f) => hooks.frameLoad.push(f),
      onShow: (f) => hooks.show.push(f),
    };
  }

  // Scenario controls: each runs its declared call on the viewer's own copy, then reloads the app.
  // The viewer sees what is happening (the scenario, the part under way, the seconds so far) over
  // the app as it was, and the app's new page only once it has loaded. What the calls were and
  // what they answered is the builder's concern (the rehearsal; a preview shows it): a viewer
  // reads "Ready" or that it could not be done.
  async function run(ask: BodyOf<'run'>): Promise<{ ok: boolean; outcomes: Outcome[] }> {
    const res = await post('run', ask);
    const body: ReplyOf<'run'> = await res.json().catch(() => ({}));
    return { ok: res.ok && !!body.ok, outcomes: body.outcomes || [] };
  }

  /** The calls and their answers, for the builder's preview only. */
  const callsDetail = (outcomes: Outcome[]) =>
    outcomes.map((o) => `${o.ok ? '✓' : '✗'} ${o.call}${o.status ? ` (${o.status})` : o.error ? ` (${o.error})` : ''}`);

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
  function reloadBehind(appId: string, url: string) {
    const old = frameOf(appId)!;
    const next = old.cloneNode(false) as HTMLIFrameElement;
    next.removeAttribute('src');
    next.classList.add('incoming');
    // First in the box: messages from the new page are its app's from now on (frameOf finds it).
    old.before(next);
    watchFrame(next);
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

  function setUpControls() {
    const outcome = document.querySelector<HTMLElement>('.run-outcome')!;
    // What a run came to stays a while, then goes: it sits over the panel's title, and "Ready"
    // minutes later tells nothing (a failure stays longer, to be read).
    let fading: ReturnType<typeof setTimeout> | undefined;
    const fadeOutcome = (ms: number) => {
      clearTimeout(fading);
      fading = setTimeout(() => (outcome.hidden = true), ms);
    };
    for (const button of document.querySelectorAll<HTMLButtonElement>('[data-run]')) {
      button.addEventListener('click', async () => {
        closeMenus();
        closeTools();
        if (button.disabled) return;
        button.disabled = true;
        const name = button.dataset.run === 'reset' ? 'Resetting the demo' : button.textContent!.trim();
        const app = data.apps.find((a) => a.id === current);
        const progress = progressOver(app && app.id, name);
        clearTimeout(fading);
        outcome.hidden = false;
        outcome.textContent = `${name}…`;
        try {
          progress.step('Step 1 of 2: setting up the demo');
          const ask: BodyOf<'run'> = button.dataset.run === 'reset' ? { reset: true } : { scenario: button.dataset.id! };
          const { ok, outcomes } = await run(ask).catch(() => ({ ok: false, outcomes: [] }));
          if (!ok) {
            outcome.textContent = `${name} could not be done. Try again in a moment.`;
            if (data.preview && outcomes.length) outcome.textContent += ` ${callsDetail(outcomes.filter((o) => !o.ok)).join(', ')}`;
            fadeOutcome(OUTCOME_FAILED_MS);
            return;
          }
          if (app && origins[app.id]) {
            progress.step('Step 2 of 2: opening the app');
            await reloadBehind(app.id, origins[app.id] + app.path);
          }
          outcome.textContent = `Ready: ${name}`;
          fadeOutcome(OUTCOME_READY_MS);
        } finally {
          progress.done();
          button.disabled = false;
        }
      });
    }
  }

  // Menus in the bar (<details>): one open at a time, closed by a choice, Escape or a click elsewhere.
  const menus = () => Array.from(document.querySelectorAll<HTMLDetailsElement>('details.menu-button'));
  function closeMenus(except?: HTMLDetailsElement) {
    for (const m of menus()) if (m !== except) m.open = false;
  }
  function setUpMenus() {
    for (const m of menus())
      m.addEventListener('toggle', () => {
        if (m.open) closeMenus(m);
      });
    document.addEventListener('click', (event) => {
      if (!(event.target as Element).closest('details.menu-button')) closeMenus();
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') closeMenus();
    });
  }

  // The device frame of the app in view: the viewer's pick, else the manifest's (or a step's).
  const picked: Record<string, string> = {};
  function frameBox(appId: string) {
    const frame = document.querySelector(`iframe[data-app="${appId}"]`);
    return frame && frame.parentElement;
  }
  function setDevice(appId: string, device: string | null | undefined) {
    const box = frameBox(appId);
    if (box) box.className = `frame frame-${device || box.dataset.device}`;
    markDevice();
  }
  function markDevice() {
    const box = current && frameBox(current);
    const now = box ? box.className.replace(/^frame frame-/, '') : null;
    for (const b of document.querySelectorAll<HTMLElement>('details.device [data-device]'))
      b.setAttribute('aria-checked', String(b.dataset.device === now));
    const menu = document.querySelector<HTMLElement>('details.device');
    if (menu) menu.hidden = !box;
  }
  function setUpDevices() {
    for (const b of document.querySelectorAll<HTMLElement>('details.device [data-device]')) {
      b.addEventListener('click', () => {
        if (current && frameBox(current)) {
          picked[current] = b.dataset.device!;
          setDevice(current, b.dataset.device);
        }
        closeMenus();
        closeTools();
      });
    }
    markDevice();
  }

  // The guided story: a step's calls run first, in order, then its app opens at its page. The
  // card offers no Back on the first step and no Next on the last. The last step offers What
  // happens next; it opens only when the viewer asks, and "Not now" (or closing the panel) is
  // kept for the rest of the session, on every step and tab.
  const offerKey = `pp:next-offer:${data.sessionId}`;
  const offerDismissed = () => {
    try {
      return sessionStorage.getItem(offerKey) === 'dismissed';
    } catch {
      return false;
    }
  };
  const dismissOffer = () => {
    try {
      sessionStorage.setItem(offerKey, 'dismissed');
    } catch {
      /* private mode: this page only */
    }
  };
  function setUpStory() {
    const found = document.getElementById('story');
    const toggle = document.getElementById('story-toggle');
    if (!found || !toggle) return;
    const panel = found;
    let at = -1;
    const status = panel.querySelector<HTMLElement>('.step-status')!;
    const calls = panel.querySelector<HTMLElement>('.step-calls')!;
    const back = panel.querySelector<HTMLElement>('[data-step="-1"]')!;
    const next = panel.querySelector<HTMLElement>('[data-step="1"]')!;
    // At the last step, Done closes the card (on a phone it covers much of the app).
    const done = panel.querySelector<HTMLElement>('.story-done')!;
    const offer = panel.querySelector<HTMLElement>('.next-offer');
    const nextToggle = document.getElementById('next-toggle');
    const nextPanel = document.getElementById('next');
    let dismissed = offerDismissed();
    function showOffer() {
      const last = at === data.story.length - 1;
      if (offer) offer.hidden = !last || dismissed;
      if (nextToggle) nextToggle.classList.toggle('offered', last && !dismissed);
    }
    const say = (text: string, failed = false) => {
      status.textContent = text;
      status.hidden = !text;
      status.classList.toggle('failed', failed);
    };
    async function go(index: number) {
      at = Math.max(0, Math.min(data.story.length - 1, index));
      const step = data.story[at];
      ringFor(null);
      panel.querySelector('.step-count')!.textContent = `Step ${at + 1} of ${data.story.length}`;
      panel.querySelector('.step-title')!.textContent = step.title;
      panel.querySelector('.step-say')!.textContent = step.say;
      back.hidden = at === 0;
      next.hidden = at === data.story.length - 1;
      done.hidden = !next.hidden;
      calls.textContent = '';
      calls.hidden = true;
      say('');
      showOffer();
      if (!step.runs) run({ step: step.id }).catch(() => {});
      if (step.runs) {
        say('Preparing this step…');
        const { ok, outcomes } = await run({ step: step.id }).catch(() => ({ ok: false, outcomes: [] }));
        say(ok ? '' : 'This step could not be prepared. Try it again in a moment.', !ok);
        // The calls and their answers: the builder's, in their own preview.
        if (data.preview && outcomes.length) {
          for (const [i, text] of callsDetail(outcomes).entries()) {
            const li = document.createElement('li');
            li.textContent = text;
            li.className = outcomes[i].ok ? 'ok' : 'failed';
            calls.append(li);
          }
          calls.hidden = false;
        }
        if (!ok) return;
      }
      show(step.app);
      setDevice(step.app, step.device || picked[step.app]);
      await load(step.app);
      if (step.path && origins[step.app]) openPath(step.app, step.path);
      ringFor(step.point ? { app: step.app, selector: step.point } : null);
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
    done.addEventListener('click', () => showCard(false));
    for (const b of panel.querySelectorAll<HTMLElement>('[data-step]')) b.addEventListener('click', () => go(at + Number(b.dataset.step)));
    if (offer) {
      offer.querySelector('.offer-open')!.addEventListener('click', () => {
        if (nextPanel && nextPanel.hidden) nextToggle!.click();
      });
      offer.querySelector('.offer-dismiss')!.addEventListener('click', () => {
        dismissed = true;
        dismissOffer();
        showOffer();
      });
    }
    // Closing What happens next, however it was opened, is an answer to the offer too.
    if (nextPanel) {
      new MutationObserver((records) => {
        // Open (no hidden attribute before) to closed: the viewer has seen it and put it away.
        const closed = records.some((r) => r.oldValue === null) && nextPanel.hidden;
        if (!closed || dismissed) return;
        dismissed = true;
        dismissOffer();
        showOffer();
      }).observe(nextPanel, { attributes: true, attributeFilter: ['hidden'], attributeOldValue: true });
    }
  }

  // The bar on a narrow screen (shell.css, max-width 640px): the tools fold into one Menu button,
  // a list under the bar; a choice in it closes it, as do Escape and a click elsewhere.
  const bar = document.querySelector('header.bar')!;
  const toolsToggle = document.getElementById('tools-toggle');
  function closeTools() {
    if (!toolsToggle || !bar.classList.contains('tools-open')) return;
    bar.classList.remove('tools-open');
    toolsToggle.setAttribute('aria-expanded', 'false');
  }
  function setUpTools() {
    if (!toolsToggle) return;
    toolsToggle.addEventListener('click', () => {
      const open = !bar.classList.contains('tools-open');
      bar.classList.toggle('tools-open', open);
      toolsToggle.setAttribute('aria-expanded', String(open));
    });
    for (const id of ['comment-toggle', 'next-toggle']) document.getElementById(id)?.addEventListener('click', closeTools);
    document.addEventListener('click', (event) => {
      if (!(event.target as Element).closest('header.bar')) closeTools();
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') closeTools();
    });
  }

  // A story step's `point`: the app's page draws a ring around the element, through the helper
  // the content origin puts in every page (services/room/content/frame-helper.js). Asked again
  // whenever a new page in the frame says it is ready, so a step that opens a page rings it once
  // it has loaded. The tour card moves out of the element's way.
  let pointing: { app: string; selector: string } | null = null;
  function frameOf(appId: string) {
    return document.querySelector<HTMLIFrameElement>(`iframe[data-app="${appId}"]`);
  }
  function askRing() {
    const frame = pointing && frameOf(pointing.app);
    if (frame && frame.contentWindow && origins[pointing!.app]) {
      frame.contentWindow.postMessage({ type: 'pp:point', selector: pointing!.selector } satisfies RoomMessage, origins[pointing!.app]);
    }
  }
  function ringFor(next: typeof pointing) {
    const before = pointing;
    pointing = next;
    const frame = before && frameOf(before.app);
    if (frame && frame.contentWindow && origins[before!.app])
      frame.contentWindow.postMessage({ type: 'pp:clear' } satisfies RoomMessage, origins[before!.app]);
    document.getElementById('story')?.classList.remove('story-top');
    askRing();
  }
  window.addEventListener('message', (event) => {
    if (!pointing) return;
    const frame = frameOf(pointing.app);
    if (!frame || event.source !== frame.contentWindow || event.origin !== origins[pointing.app]) return;
    const message: { type?: unknown; rect?: FrameRect | null } = event.data || {};
    if (message.type === 'pp:ready') askRing();
    if (message.type === 'pp:pointed' && message.rect) keepCardClear(frame, message.rect);
  });
  /** Puts the tour card at the top when, at the bottom, it would cover the ringed element. */
  function keepCardClear(frame: HTMLIFrameElement, rect: FrameRect) {
    const panel = document.getElementById('story');
    if (!panel || panel.hidden) return;
    const box = frame.getBoundingClientRect();
    const element = {
      top: box.top + rect.top,
      bottom: box.top + rect.top + rect.height,
      left: box.left + rect.left,
      right: box.left + rect.left + rect.width,
    };
    panel.classList.remove('story-top');
    const card = panel.getBoundingClientRect();
    const covers = card.left < element.right && card.right > element.left && card.top < element.bottom && card.bottom > element.top;
    if (covers) panel.classList.add('story-top');
  }

  // Opens a page of an app in its frame. When the page the app is on differs from the step's
  // only in the hash (a hash-routed app, `#/tag/op`), the app's own page moves its hash through
  // the frame helper (frame-helper.js, pp:hash): the app routes as if the viewer clicked a link,
  // keeping its state, and nothing reloads. Otherwise the frame's address is set anew, even when
  // it equals the last one set (through a blank frame: setting `src` to the value it already
  // holds would not move the app).
  const lastOpened: Record<string, string> = {};
  function openPath(appId: string, path: string) {
    const frame = frameOf(appId)!;
    const target = new URL(path, origins[appId]);
    lastOpened[appId] = target.href;
    const on = screens[appId] != null ? new URL(screens[appId], origins[appId]) : null;
    if (on && target.hash && on.pathname === target.pathname && on.search === target.search) {
      if (on.hash !== target.hash) {
        frame.contentWindow!.postMessage({ type: 'pp:hash', hash: target.hash } satisfies RoomMessage, origins[appId]);
        // The helper tells of the new hash (pp:screen) as soon as the app has it. An app that did
        // not take it (it reads its hash only when it loads, or the message was lost on a busy
        // page) gets the step's address loaded instead: a step lands whatever the app does.
        setTimeout(() => {
          const now = screens[appId] != null ? new URL(screens[appId], origins[appId]) : null;
          // Unless another step has been opened since.
          if (lastOpened[appId] === target.href && now?.hash !== target.hash && frame.isConnected) frame.src = target.href;
        }, HASH_TAKEN_MS);
      }
      return;
    }
    const url = target.href;
    if (frame.getAttribute('src') === url) frame.src = 'about:blank';
    frame.src = url;
  }

  // The room really ran in a browser: the visit starts now (a link-preview fetch never gets here).
  // A room whose seats were all taken since the page came says so: the address, asked again,
  // answers Demo full.
  if (!data.preview) {
    post('arrive', {})
      .then((res) => res.json())
      .then((body: ReplyOf<'arrive'> | null) => {
        if (body && body.full) location.reload();
      })
      .catch(() => {});
  }

  // A personalised build: the viewer is told once per session (remembered in this browser).
  const note = document.getElementById('personal-note');
  if (note) {
    const seen = `pp-personal-note:${data.sessionId}`;
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

  // Who are you: asked once per session, with an email when the project requires one.
  const dialog = document.getElementById('who') as HTMLDialogElement;
  if (!data.ask.name && !data.ask.email) return start();
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
    const body: BodyOf<'hello'> = { name: field('name').value };
    if (data.ask.email) body.email = field('email').value;
    if (data.ask.company && field('company').value.trim()) body.company = field('company').value;
    const res = await post('hello', body);
    if (res.ok) {
      // Saying who you are arrives too (if the first arrival was lost): it may find the room full.
      if (((await res.json().catch(() => ({}))) as ReplyOf<'hello'>).full) {
        location.reload();
        return;
      }
      dialog.close();
      start();
      return;
    }
    const problem: ReplyOf<'hello'> = await res.json().catch(() => ({}));
    form.querySelector('.error')!.textContent =
      (problem.issues && problem.issues[0] && problem.issues[0].message) || 'Please check your answer.';
  });
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.showModal();
})();
