import { Redis } from 'ioredis';

// The registry's blob descriptor cache (docs/decisions/registry-and-images.md): Distribution keeps,
// in a Redis database of its own, that a blob exists and which repositories hold it. After
// `garbage-collect` those entries would answer for blobs that are gone (a HEAD says 200, a push
// skips the upload, a manifest naming it is accepted), so the collection empties the database
// before pushes reopen; the registry fills it again from the store as it is asked.

/** Empties the registry's cache database; throws when it could not (the caller keeps pushes closed). */
export async function emptyRegistryCache(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000, enableOfflineQueue: false });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}
