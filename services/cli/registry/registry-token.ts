import { platformRequest } from '../config/platform-request.js';
import { Refusal } from '../refusal.js';
import { userAgent } from '../version.js';

/** A registry token from the platform's /v2/token, and the registry it is for. */
export interface RegistryGrant {
  token: string;
  registry: string;
}

/**
 * Asks the platform for a registry token for `scopes` (`repository:<ws>/<project>:push,pull`),
 * with the API token as a Bearer. Null when the platform has no registry (404): the deploy then
 * sends a bundle, as CLIs before the registry did.
 */
export async function askRegistryToken(apiUrl: string, apiToken: string, scopes: string[]): Promise<RegistryGrant | null> {
  const query = scopes.map((s) => `scope=${encodeURIComponent(s)}`).join('&');
  const res = await platformRequest(`${apiUrl}/v2/token?service=demo-rooms-registry${query ? `&${query}` : ''}`, {
    method: 'GET',
    headers: { authorization: `Bearer ${apiToken}`, 'user-agent': userAgent },
  });
  if (res.status === 404) return null;
  const body = (await res.json().catch(() => null)) as { token?: unknown; registry?: unknown; error?: unknown } | null;
  if (res.status !== 200 || typeof body?.token !== 'string' || typeof body.registry !== 'string') {
    throw new Refusal(`the platform refused a registry token: ${res.status} ${String(body?.error ?? '')}`.trim());
  }
  return { token: body.token, registry: body.registry };
}
