import { describe, expect, it } from 'vitest';
import { type PictureHost, placeOn } from './fleet-placement.js';

const host = (id: string, free: number, pool: Partial<Pick<PictureHost, 'warm' | 'warming'>> = {}): PictureHost => ({
  id,
  apiUrl: `http://${id}`,
  free,
  warm: { ...pool.warm },
  warming: { ...pool.warming },
});

describe('placement on the fleet picture', () => {
  it('sends a session to its own host, else a warm copy, else one warming, else the most free slots', () => {
    const hosts = [host('a', 5, { warming: { b1: 1 } }), host('b', 9), host('c', 2, { warm: { b1: 1 } })];
    expect(placeOn(hosts, 'b1', 'a')?.id).toBe('a');
    expect(placeOn(hosts, 'b1', undefined)?.id).toBe('c'); // the warm copy, taken off the picture
    expect(placeOn(hosts, 'b1', undefined)?.id).toBe('a'); // then the one warming
    expect(placeOn(hosts, 'b1', undefined)?.id).toBe('b'); // then free slots
    expect(placeOn(hosts, 'other', 'gone-host')?.id).toBe('b'); // a session host no longer live is not chosen
  });

  it('spreads a burst between two reads as the free slots say', () => {
    const hosts = [host('a', 30), host('b', 10), host('c', 0)];
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 36; i++) counts[placeOn(hosts, 'b1', undefined)!.id]++;
    // The first 20 go to a (30 → 10), then a and b take turns down to 2 free each.
    expect(counts).toEqual({ a: 28, b: 8, c: 0 });
    expect(hosts.map((h) => h.free)).toEqual([2, 2, 0]);
  });

  it('breaks ties at random, each tied host as likely', () => {
    const seen = new Set<string>();
    for (const r of [0, 0.4, 0.6, 0.99]) seen.add(placeOn([host('a', 3), host('b', 3)], 'b1', undefined, () => r)!.id);
    expect(seen).toEqual(new Set(['a', 'b']));
  });

  it('answers nothing when no host is live', () => {
    expect(placeOn([], 'b1', 'a')).toBeUndefined();
  });
});
