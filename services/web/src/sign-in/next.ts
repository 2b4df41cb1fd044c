import { samePath } from '@demo-rooms/contract';

// Where to go once signed in: `?next=` of /login, kept in this tab while the emailed link is
// opened (it opens /auth/email without it). Only a path on this origin.

const KEY = 'pp-next';

export function rememberNext(search: string) {
  const next = new URLSearchParams(search).get('next');
  if (next) sessionStorage.setItem(KEY, samePath(next));
}

/** Back to this page after signing in, when the emailed link opens in this tab (a step-up). */
export function rememberHere() {
  sessionStorage.setItem(KEY, samePath(window.location.pathname + window.location.search));
}

export function goOn() {
  const next = samePath(sessionStorage.getItem(KEY));
  sessionStorage.removeItem(KEY);
  window.location.replace(next);
}

export const nextOf = (search: string) => samePath(new URLSearchParams(search).get('next'));
