// The platform's own plain pages (services/api/pages): what each does, by <body data-page>.
// Same-origin fetches with the session cookie; the API checks Origin on every mutation.
const page = document.body.dataset.page;
const status = document.querySelector('[role="status"]');
const say = (text, problem = false) => {
  status.textContent = text;
  status.classList.toggle('problem', problem);
};
const post = (path, body) =>
  fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}), credentials: 'same-origin' });
const reasonOf = async (res) => {
  const body = await res.json().catch(() => ({}));
  return res.status === 429 ? `Too many tries: ${body.error}. Try again in ${Math.ceil((body.retryAfter ?? 60) / 60)} min.` : body.error ?? `The platform answered ${res.status}.`;
};

if (page === 'login') {
  const form = document.querySelector('form');
  const next = new URLSearchParams(location.search).get('next');
  if (next) sessionStorage.setItem('pp-next', next);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    const email = form.email.value.trim();
    const res = await post('/api/auth/email', { email });
    button.disabled = false;
    if (!res.ok) return say(await reasonOf(res), true);
    say(`We sent a sign-in link to ${email}. Open it in this browser within 15 minutes.`);
    document.querySelector('#outbox')?.removeAttribute('hidden');
  });
}

if (page === 'email') {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  post('/api/auth/email/verify', { token }).then(async (res) => {
    if (!res.ok) return say(res.status === 404 ? 'This sign-in link has expired or was used already. Ask for a new one.' : await reasonOf(res), true);
    const next = sessionStorage.getItem('pp-next');
    sessionStorage.removeItem('pp-next');
    // Only a path on this origin (the server checked it when it sent us to /login too).
    location.replace(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
  });
}

if (page === 'device') {
  const button = document.querySelector('button');
  button.addEventListener('click', async () => {
    button.disabled = true;
    const res = await post('/api/auth/device/approve', { userCode: button.dataset.code });
    if (res.ok) return say('Approved. Go back to your terminal: the pitch tool is signed in.');
    button.disabled = false;
    say(res.status === 404 ? 'This code is unknown or expired. Run `pitch login` again for a new one.' : await reasonOf(res), true);
  });
}

if (page === 'invitation') {
  const invited = document.querySelector('#invited');
  const button = document.querySelector('button');
  const path = `/api/invitations/${encodeURIComponent(invited.dataset.key)}`;
  fetch(path, { credentials: 'same-origin' }).then(async (res) => {
    if (!res.ok) {
      invited.textContent = 'This invitation is not for the email you are signed in with, or it was used, revoked or has expired.';
      return;
    }
    const view = await res.json();
    invited.textContent = `${view.invitedBy} invites you to ${view.workspaceName}, until ${new Date(view.expiresAt).toLocaleString()}.`;
    button.hidden = false;
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    const res = await post(`${path}/accept`);
    if (!res.ok) {
      button.disabled = false;
      return say(res.status === 404 ? 'This invitation can no longer be used.' : await reasonOf(res), true);
    }
    const team = await res.json();
    button.hidden = true;
    say(`You joined ${team.name}; it is now your active workspace.`);
  });
}

if (page === 'home') {
  fetch('/api/me/account', { credentials: 'same-origin' }).then(async (res) => {
    if (!res.ok) return location.replace('/login');
    const me = await res.json();
    document.querySelector('#who').textContent = me.email;
  });
  document.querySelector('button').addEventListener('click', async () => {
    await post('/api/auth/logout');
    location.replace('/login');
  });
}
