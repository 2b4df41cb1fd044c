// Where a viewer's copy goes, chosen in memory from a picture of the fleet that the room reads at
// most once a second (fleet-client.ts): the session's own host, else a host with a warm copy of
// the build, else one still warming one, else the host with the most free slots. Each choice is
// taken off the picture at once, so a burst between two reads spreads over the hosts as the
// slots say instead of landing on whichever host had the most a moment ago. The picture is a
// hint: every host admits under the caps read in the database (admission-batch.ts), so a stale
// picture can only send a viewer to a fuller host, where they queue, never over a cap.

/** One live host as the room last read it. */
export interface PictureHost {
  id: string;
  apiUrl: string;
  /** Slots not taken by a live copy. */
  free: number;
  /** Copies ready and waiting for a viewer, by build. */
  warm: Record<string, number>;
  /** Copies starting for the pool (no viewer yet), by build. */
  warming: Record<string, number>;
}

/**
 * The host for a viewer entering: `sessionHost` (the host of their copy not ended) when live,
 * else the best by warm, warming, then free slots, ties at random; undefined when no host is
 * live. The chosen host's counts are moved as the admission will move them.
 */
export function placeOn(
  hosts: PictureHost[],
  buildId: string,
  sessionHost: string | undefined,
  random = Math.random,
): PictureHost | undefined {
  const own = sessionHost ? hosts.find((h) => h.id === sessionHost) : undefined;
  if (own) return own;
  let best: PictureHost | undefined;
  let bestRank: number[] = [];
  let ties = 0;
  for (const h of hosts) {
    const rank = [(h.warm[buildId] ?? 0) > 0 ? 1 : 0, (h.warming[buildId] ?? 0) > 0 ? 1 : 0, h.free];
    const order = compare(rank, bestRank);
    if (!best || order > 0) {
      best = h;
      bestRank = rank;
      ties = 1;
    } else if (order === 0 && random() * ++ties < 1) best = h; // reservoir: each tie equally likely
  }
  if (!best) return undefined;
  if ((best.warm[buildId] ?? 0) > 0) best.warm[buildId]--;
  else if ((best.warming[buildId] ?? 0) > 0) best.warming[buildId]--;
  else best.free--;
  return best;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i] ? 1 : -1;
  return 0;
}
