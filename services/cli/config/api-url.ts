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
