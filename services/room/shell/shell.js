// The room shell: tabs, frames, the who-are-you prompt and the time beacon. It runs on the
// platform origin and never touches build content, which lives in frames on the content origin.
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('room-data').textContent);
  const base = `/room/${data.sessionId}`;
  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
  const loaded = new Set();
  const pending = {};
  let current = null;
  let since = performance.now();

  const post = (path, body) => fetch(`${base}/${path}`, {
    method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });

  // Seconds spent on the tab in view, counted only while the page is visible.
  function account() {
    const now = performance.now();
    if (current && document.visibilityState === 'visible') pending[current] = (pending[current] || 0) + (now - since) / 1000;
    since = now;
  }

  function takeTime() {
    account();
    const time = {};
    for (const [key, seconds] of Object.entries(pending)) {
      const whole = Math.floor(seconds);
      if (whole > 0) { time[key] = whole; pending[key] = seconds - whole; }
    }
    return { time };
  }

  function stateText(appId, text) {
    const el = document.querySelector(`[data-state-for="${appId}"]`);
    if (!el) return;
    el.textContent = text || '';
    el.hidden = !text;
  }

  async function load(appId) {
    if (loaded.has(appId)) return;
    loaded.add(appId);
    const frame = document.querySelector(`iframe[data-app="${appId}"]`);
    stateText(appId, 'Opening…');
    try {
      const res = await post('grant', { app: appId });
      const body = await res.json().catch(() => ({}));
      if (res.ok && body.url) {
        frame.addEventListener('load', () => stateText(appId, ''), { once: true });
        frame.src = body.url;
        return;
      }
      stateText(appId, body.message || 'This part of the demo could not be opened. Reload to try again.');
    } catch {
      stateText(appId, 'The room lost its connection. Reload to try again.');
    }
    loaded.delete(appId);
  }

  function show(id) {
    account();
    current = id;
    for (const tab of tabs) {
      const on = tab.dataset.tab === id;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(`panel-${tab.dataset.tab}`).hidden = !on;
    }
    const tab = tabs.find((t) => t.dataset.tab === id);
    if (tab && tab.dataset.kind === 'app') load(id);
  }

  for (const tab of tabs) {
    tab.addEventListener('click', () => show(tab.dataset.tab));
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      next.focus();
      show(next.dataset.tab);
    });
  }

  function start() {
    const wanted = location.hash.slice(1);
    show(tabs.some((t) => t.dataset.tab === wanted) ? wanted : data.opened);
    setInterval(() => { post('beat', takeTime()).catch(() => {}); }, 15000);
    document.addEventListener('visibilitychange', account);
    addEventListener('pagehide', () => navigator.sendBeacon(`${base}/leave`, JSON.stringify(takeTime())));
  }

  // Who are you: asked once per session, with an email when the project requires one.
  const dialog = document.getElementById('who');
  if (!data.ask.name && !data.ask.email) return start();
  const form = document.getElementById('who-form');
  form.elements.name.value = data.ask.suggestedName || '';
  form.querySelector('.email').hidden = !data.ask.email;
  form.elements.email.required = data.ask.email;
  form.elements.name.required = true;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { name: form.elements.name.value };
    if (data.ask.email) body.email = form.elements.email.value;
    const res = await post('hello', body);
    if (res.ok) { dialog.close(); start(); return; }
    const problem = await res.json().catch(() => ({}));
    form.querySelector('.error').textContent = (problem.issues && problem.issues[0] && problem.issues[0].message) || 'Please check your answer.';
  });
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.showModal();
})();
