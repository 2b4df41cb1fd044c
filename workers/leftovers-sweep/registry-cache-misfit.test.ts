import { describe, expect, it } from 'vitest';
import { cacheMisfit } from './registry-gc.sweep.js';

// The collection runs only where it can empty the registry's blob descriptor cache after it
// (docs/decisions/registry-and-images.md): a kept descriptor would answer for a deleted blob.

const json = (cache?: string) => JSON.stringify({ storage: { s3: {}, ...(cache ? { cache: { blobdescriptor: cache } } : {}) } }, null, 2);
const yaml = (cache: string) => `version: 0.1\nstorage:\n  cache:\n    blobdescriptor: ${cache}\n  s3:\n    bucket: registry\n`;

describe('the registry config a collection can run against', () => {
  it('goes ahead with no cache, or a Redis cache whose database it was given', () => {
    expect(cacheMisfit(json(), {})).toBeNull();
    expect(cacheMisfit('', {})).toBeNull();
    expect(cacheMisfit(json('redis'), { cacheRedisUrl: 'redis://127.0.0.1:6379/2' })).toBeNull();
    expect(cacheMisfit(yaml('redis'), { cacheRedisUrl: 'redis://127.0.0.1:6379/2' })).toBeNull();
  });

  it('refuses a Redis cache whose database it was not given', () => {
    expect(cacheMisfit(json('redis'), {})).toMatch(/REGISTRY_CACHE_REDIS_URL/);
    expect(cacheMisfit(yaml('redis'), {})).toMatch(/REGISTRY_CACHE_REDIS_URL/);
  });

  it("refuses a cache in the registry's memory, which nothing can empty", () => {
    expect(cacheMisfit(json('inmemory'), { cacheRedisUrl: 'redis://127.0.0.1:6379/2' })).toMatch(/in inmemory/);
    expect(cacheMisfit(yaml('inmemory'), {})).toMatch(/stale/);
  });
});
