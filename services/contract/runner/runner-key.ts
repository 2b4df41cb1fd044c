import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// The runner's internal API is for the room alone. Both derive one key from APP_SECRET, so there
// is no second secret to hand out or rotate; the room sends it in this header on every call.
export const RUNNER_KEY_HEADER = 'x-runner-key';

export function runnerKey(appSecret: string): string {
  return createHmac('sha256', Buffer.from(appSecret, 'hex')).update('demo-rooms/runner/v1').digest('base64url');
}

// Compared as digests: equal lengths for timingSafeEqual, no early exit on a common prefix.
const digest = (s: string) => createHash('sha256').update(s).digest();

/** The expected key's digest, made once: every call to a runner is checked, a crowd's too. */
let expectedDigest: { key: string; digest: Buffer } | undefined;

export function keyMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  if (expectedDigest?.key !== expected) expectedDigest = { key: expected, digest: digest(expected) };
  return timingSafeEqual(digest(given), expectedDigest.digest);
}
