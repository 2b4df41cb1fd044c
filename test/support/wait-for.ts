// Tests wait on real services by polling, with a generous deadline: never by a fixed sleep,
// and never asserting how long something took.

/** Polls `check` until it returns something truthy (a throw counts as "not yet"), or gives up. */
export async function waitFor<T>(what: string, check: () => Promise<T | false | null | undefined>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result) return result;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs / 1000}s waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
