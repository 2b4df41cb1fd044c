// Types of the registry.mjs launcher that TypeScript imports (workers/leftovers-sweep/registry-gc.int.test.ts
// starts a registry of its own, so its garbage collection touches no other test's).
export function startRegistry(options: {
  dataDir: string;
  port?: number;
  quiet?: boolean;
  /** The S3 store's env (S3_ENDPOINT, keys, …, and REGISTRY_S3_BUCKET for a bucket of its own). */
  s3?: Record<string, string | undefined>;
  /** redis://host:port/db: the registry's blob descriptor cache, in a database of its own (emptied at start). */
  cacheRedis?: string;
}): Promise<{
  env: { REGISTRY_URL: string; REGISTRY_TOKEN_KEY_FILE: string; REGISTRY_CONFIG: string; REGISTRY_CACHE_REDIS_URL?: string };
  port: number;
  pid: number;
  stop: () => Promise<void>;
}>;
export function registryBucket(env?: Record<string, string | undefined>): string;
