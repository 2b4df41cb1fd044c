import { describe, expect, it } from 'vitest';
import { parsePool, pickSubnet } from './subnets.js';

describe('copy subnets', () => {
  it('cuts the pool into /29s and gives the first address to the gateway', () => {
    expect(parsePool('10.213.0.0/16')).toEqual({ base: (10 * 256 + 213) * 65536, count: 8192 });
    expect(pickSubnet('10.213.0.0/16', () => 0)).toEqual({ subnet: '10.213.0.0/29', gateway: '10.213.0.1' });
    expect(pickSubnet('10.213.0.0/16', () => 8191)).toEqual({ subnet: '10.213.255.248/29', gateway: '10.213.255.249' });
    expect(pickSubnet('10.213.7.9/24', () => 1)).toEqual({ subnet: '10.213.7.8/29', gateway: '10.213.7.9' });
  });

  it('refuses a pool too small to cut', () => {
    expect(() => parsePool('10.0.0.0/30')).toThrow(/prefix/);
  });
});
