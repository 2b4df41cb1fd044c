import { Refusal } from '../refusal.js';

export const DEFAULT_API = 'http://127.0.0.1:8080';

/**
 * The platform's address: --api, then PITCH_API, then the local default. Normalised to its
 * origin and path without a trailing slash, so tokens stored per address match however typed.
 */
export function resolveApiUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const given = flag ?? env.PITCH_API ?? DEFAULT_API;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new Refusal(`the platform address ${JSON.stringify(given)} is not a URL`, 'give it as --api http://host:port or PITCH_API');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Refusal(`the platform address ${given} must start with http:// or https://`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Hosts whose http:// stays on this machine: 127.0.0.0/8, ::1 and localhost. */
const loopback = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * A warning when the address is plain http:// to another machine: the bearer token would cross the network readable by
 * anyone on the way. Only a warning, so a platform on a trusted private network still works.
 */
export function plainHttpWarning(apiUrl: string): string | null {
  const url = new URL(apiUrl);
  if (url.protocol !== 'http:' || loopback.test(url.hostname)) return null;
  return `pitch: warning: ${url.origin} is plain http on another machine: your token crosses the network unencrypted; use https://`;
}
