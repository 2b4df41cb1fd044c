import { describe, expect, it } from 'vitest';
import { type PictureHost, placeOn, rendezvous } from './fleet-placement.js';

const host = (id: string, free: number, pool: Partial<Pick<PictureHost, 'warm' | 'warming'>> = {}): PictureHost => ({
  id,
  apiUrl: `http://${id}`,
  free,
  warm: { ...pool.warm },
  warming: { ...pool.warming },
});

/** The hosts in the workspace's own order, first the one it goes to while every host has room. */
const orderOf = (workspaceId: string, ids: string[]) => [...ids].sort((x, y) => rendezvous(workspaceId, y) - rendezvous(workspaceId, x));

describe('placement on the fleet picture', () => {
  it('sends a session to its own host, else a warm copy, else one warming, else the most free slots', () => {
    const hosts = [host('a', 5, { warming: { b1: 1 } }), host('b', 9), host('c', 2, { warm: { b1: 1 } })];
    const ask = { buildId: 'b1', workspaceId: 'w1' };
    expect(placeOn(hosts, ask, 'a')?.id).toBe('a');
    expect(placeOn(hosts, ask, undefined)?.id).toBe('c'); // the warm copy, taken off the picture
    expect(placeOn(hosts, ask, undefined)?.id).toBe('a'); // then the one warming
    expect(placeOn(hosts, ask, undefined)?.id).toBe('b'); // then free slots: a (5) is more than a quarter behind b (9)
    expect(placeOn(hosts, { buildId: 'other', workspaceId: 'w1' }, 'gone-host')?.id).toBe('b'); // a session host no longer live is not chosen
  });

  it('places on small hosts by the most free slots, ties in the workspace order', () => {
    const [first, second] = orderOf('w-small', ['a', 'b']);
    const hosts = [host('a', 3), host('b', 3)];
    const placed = Array.from({ length: 4 }, () => placeOn(hosts, { buildId: 'b1', workspaceId: 'w-small' }, undefined)!.id);
    expect(placed).toEqual([first, second, first, second]);
  });

  it("keeps a workspace's crowd on its own host while that host has room, then on its next", () => {
    const ids = ['a', 'b', 'c', 'd'];
    const [first, second, third, fourth] = orderOf('w-crowd', ids);
    const hosts = ids.map((id) => host(id, 20));
    const counts: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let i = 0; i < 15; i++) counts[placeOn(hosts, { buildId: 'b1', workspaceId: 'w-crowd' }, undefined)!.id]++;
    // Its own host takes viewers while it is within a quarter (5) of the roomiest's 20 free slots:
    // 6 of them, down to 14; then the next in the workspace's order, and the next.
    expect([counts[first], counts[second], counts[third], counts[fourth]]).toEqual([6, 6, 3, 0]);
  });

  it('spreads different workspaces over the hosts, each to the same host on every room process', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const seen: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let w = 0; w < 400; w++) {
      const workspaceId = `w-${w}`;
      const on = placeOn(
        ids.map((id) => host(id, 1000)),
        { buildId: 'b', workspaceId },
        undefined,
      )!.id;
      // Another room process, with its own picture, chooses the same host.
      expect(
        placeOn(
          ids.map((id) => host(id, 1000)),
          { buildId: 'b', workspaceId },
          undefined,
        )!.id,
      ).toBe(on);
      seen[on]++;
    }
    for (const id of ids) expect(seen[id]).toBeGreaterThan(60); // 100 each on average
  });

  it('never sends a viewer to a host with no free slot while another has one', () => {
    const hosts = [host('a', 0), host('b', 1)];
    for (const w of ['w1', 'w2', 'w3', 'w4']) {
      hosts[1].free = 1;
      expect(placeOn(hosts, { buildId: 'b1', workspaceId: w }, undefined)?.id).toBe('b');
    }
  });

  it('answers nothing when no host is live', () => {
    expect(placeOn([], { buildId: 'b1', workspaceId: 'w1' }, 'a')).toBeUndefined();
  });
});
