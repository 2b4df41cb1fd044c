// Where a viewer's copy goes, chosen in memory from a picture of the fleet that the room reads at
// most once a second (fleet-client.ts): the session's own host, else a host with a warm copy of
// the build, else one still warming one, else the workspace's own host while it has room. Each
// choice is taken off the picture at once, so a burst between two reads moves on as the slots
// say instead of landing on whichever host had the most a moment ago. The picture is a hint:
// every host admits under the caps read in the database (admission-batch.ts), so a stale picture
// can only send a viewer to a fuller host, where they queue, never over a cap.
//
// A workspace's own host: the first of the hosts in the workspace's rendezvous order (a hash of
// the pair, as HRW hashing ranks them) whose free slots are within a quarter of the roomiest
// host's (consistent hashing with bounded loads). A workspace's viewers then meet on one host, or
// a few once it fills, and not on every host: each host's admission batch holds its workspaces'
// locks while it decides, and four hosts each holding most of a crowd's workspaces decided one
// after another (docs/scale.md, "Twelfth round"). Different workspaces land on different hosts, so
// a crowd still spreads, and no host falls more than a quarter behind the roomiest. Small hosts
// (under 4 free) are placed by the most free slots, ties in the workspace's order.

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
 * else a warm copy of the build, else one warming, else the workspace's own host (above);
 * undefined when no host is live. The chosen host's counts are moved as the admission will move
 * them.
 */
export function placeOn(
  hosts: PictureHost[],
  ask: { buildId: string; workspaceId: string },
  sessionHost: string | undefined,
): PictureHost | undefined {
  const own = sessionHost ? hosts.find((h) => h.id === sessionHost) : undefined;
  if (own) return own;
  const { buildId, workspaceId } = ask;
  const roomiest = Math.max(0, ...hosts.map((h) => h.free));
  let best: PictureHost | undefined;
  let bestRank: number[] = [];
  for (const h of hosts) {
    const rank = [
      (h.warm[buildId] ?? 0) > 0 ? 1 : 0,
      (h.warming[buildId] ?? 0) > 0 ? 1 : 0,
      h.free > 0 && h.free >= roomiest - Math.floor(roomiest / 4) ? 1 : 0,
      rendezvous(workspaceId, h.id),
    ];
    if (!best || compare(rank, bestRank) > 0) {
      best = h;
      bestRank = rank;
    }
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

/**
 * The host's weight in the workspace's order, the same on every room process: FNV-1a of the pair,
 * then murmur3's finalizer (host ids differ in their last characters, which FNV alone mixes badly).
 */
export function rendezvous(workspaceId: string, hostId: string): number {
  let h = 0x811c9dc5;
  const s = `${workspaceId}/${hostId}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
