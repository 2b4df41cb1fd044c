import { waitUntil } from '../../infra/local/lib.mjs';

// Tests wait on real services by polling, with a generous deadline: never by a fixed sleep,
// and never asserting how long something took. The polling is the launcher's own (waitUntil in
// infra/local/lib.mjs, plain JavaScript because it runs before `npm ci`); tests wait longer.

/** Polls `check` until it returns something truthy (a throw counts as "not yet"), or gives up. */
export function waitFor<T>(
  what: string,
  check: () => Promise<T | false | null | undefined>,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  return waitUntil(what, check, { timeoutMs, intervalMs: everyMs });
}
