import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Config } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import type { Logger } from '../../services/core/infra/log.js';
import { emptyRegistryCache } from '../../services/core/infra/registry/registry-cache.js';
import { registryTokenGraceSeconds } from '../../services/core/infra/registry/registry-token.js';
import { claimRegistryGc, closeRegistryPushes, endRegistryGc, registryGcState } from '../../services/data/registry-gc.sql.js';
import { forgetCheckedBlobSizes } from '../../services/data/checked-blob-sizes.sql.js';
import { forgetRegistryBlobs } from '../../services/data/registry-usage.sql.js';

const run = promisify(execFile);

/**
 * At most one collection in this many hours: each closes pushes for a token's lifetime (15 min by
 * default). Under a day, so that with the hourly sweep and the wait a superseded build's layers
 * are freed within a day of it being superseded (issue 45, H1).
 */
export const registryGcEveryHours = 20;

/** What a collection needs: the registry's URL (the row's key) and its config file (the storage). */
export interface RegistryGcTarget {
  registry: string;
  configFile: string;
  tokenSeconds: number;
  /** The registry's blob descriptor cache, emptied after each collection (registry-cache.ts); none when unset. */
  cacheRedisUrl?: string;
}

export function registryGcTargetOf(
  config: Pick<Config, 'REGISTRY_URL' | 'REGISTRY_CONFIG' | 'REGISTRY_TOKEN_SECONDS' | 'REGISTRY_CACHE_REDIS_URL'>,
): RegistryGcTarget | null {
  if (!config.REGISTRY_URL || !config.REGISTRY_CONFIG) return null;
  return {
    registry: config.REGISTRY_URL,
    configFile: config.REGISTRY_CONFIG,
    tokenSeconds: config.REGISTRY_TOKEN_SECONDS,
    cacheRedisUrl: config.REGISTRY_CACHE_REDIS_URL,
  };
}

/** From closing pushes to collecting (s): the longest push token's lifetime and its grace. */
export const registryGcWaitSeconds = (target: RegistryGcTarget) => target.tokenSeconds + registryTokenGraceSeconds;

export type RegistryGcStep = 'off' | 'not wanted' | 'not due' | 'pushes closed' | 'waiting' | 'collected' | 'failed';

/**
 * The sweep's share of the registry's garbage (docs/decisions/registry-garbage.md).
 * Distribution's `garbage-collect` is an offline operation: a blob pushed but not yet
 * named by a manifest is unreferenced and would be deleted under the push. So, across sweeps:
 * 1. when manifests were deleted or anything was pushed since the last run (wanted: a blob no
 *    manifest names waits for a collection too) and none ran for `registryGcEveryHours`, pushes close: the api's
 *    /v2/token issues no push token (pulls go on);
 * 2. once every push token issued before that has expired (its lifetime and a margin), one
 *    sweep (queued by the closing one for then) claims the run and calls `docker-registry garbage-collect <the registry's config>`
 *    (without --delete-untagged: every pushed manifest is untagged, and that flag would take them
 *    all), on the machine where the config and binary are;
 * 3. pushes reopen, whether it ran or failed; the result is kept and logged.
 * The state is one row in Postgres (registry-gc.sql.ts), never in this process.
 */
export async function collectRegistryGarbage(
  sql: Sql,
  target: RegistryGcTarget | null,
  log: Logger,
  now = new Date(),
): Promise<RegistryGcStep> {
  if (!target) return 'off';
  const misfit = cacheMisfit(await readFile(target.configFile, 'utf8').catch(() => ''), target);
  if (misfit) {
    log.error({ registry: target.registry }, `registry garbage collection off: ${misfit}`);
    return 'off';
  }
  const state = await registryGcState(sql, target.registry);
  if (!state?.wantedSince && !state?.pushesClosedAt) return 'not wanted';
  if (!state.pushesClosedAt) {
    // Wanted, but one ran in the last day (or another sweep closed pushes just now).
    if (!(await closeRegistryPushes(sql, target.registry, registryGcEveryHours, now))) return 'not due';
    log.info({ registry: target.registry }, 'registry garbage collection: pushes closed until the last push token expires');
    return 'pushes closed';
  }
  if (!(await claimRegistryGc(sql, target.registry, registryGcWaitSeconds(target), now))) return 'waiting';
  const started = Date.now();
  let outcome: { result: Record<string, unknown>; ok: boolean };
  try {
    const { all, ...freed } = await garbageCollect(target.configFile);
    // What was deleted no workspace holds any more: their registry bytes go down (registry-usage.sql.ts).
    await forgetRegistryBlobs(sql, all);
    await forgetCheckedBlobSizes(sql, all);
    outcome = { result: { ...freed, ms: Date.now() - started }, ok: true };
  } catch (err) {
    outcome = { result: { error: (err as Error).message.slice(0, 2000) }, ok: false };
  }
  // Done or failed part way, blobs may be gone that the registry's cache still answers for: it is
  // emptied before pushes reopen. If it cannot be, pushes stay closed; the claim runs out within
  // the hour and the next sweep collects (nothing left to delete) and empties it again.
  if (target.cacheRedisUrl) {
    try {
      await emptyRegistryCache(target.cacheRedisUrl);
    } catch (err) {
      log.error({ registry: target.registry, err }, 'registry cache not emptied after a collection; pushes stay closed');
      return 'failed';
    }
  }
  await endRegistryGc(sql, target.registry, outcome.result, outcome.ok, new Date(now.getTime() + Date.now() - started));
  if (outcome.ok) log.info({ registry: target.registry, ...outcome.result }, 'registry garbage collection done; pushes reopened');
  else log.error({ registry: target.registry, ...outcome.result }, 'registry garbage collection failed; pushes reopened');
  return outcome.ok ? 'collected' : 'failed';
}

/**
 * Why a collection would leave the registry's blob descriptor cache answering for deleted blobs,
 * read from its config (YAML or JSON): one kept in the registry's memory, which nothing here can
 * empty, or one in Redis whose database the platform was not given. Null when it can go ahead.
 */
export function cacheMisfit(configText: string, target: Pick<RegistryGcTarget, 'cacheRedisUrl'>): string | null {
  const kind = /blobdescriptor"?\s*:\s*"?([a-z]+)/i.exec(configText)?.[1]?.toLowerCase();
  if (!kind) return null;
  if (kind !== 'redis')
    return `the registry keeps a blob descriptor cache in ${kind}, which a collection would leave stale: configure none, or redis and REGISTRY_CACHE_REDIS_URL`;
  if (!target.cacheRedisUrl)
    return 'the registry keeps its blob descriptor cache in redis: set REGISTRY_CACHE_REDIS_URL to that database, so a collection can empty it';
  return null;
}

/** Runs the registry's collector against its config; answers what it deleted. */
async function garbageCollect(
  configFile: string,
): Promise<{ blobs: number; manifests: number; kept: number; digests: string[]; all: string[] }> {
  // A clean environment: Distribution reads every REGISTRY_* variable as a config override, and the
  // platform's own (REGISTRY_URL, REGISTRY_CONFIG) are not its. Only the storage's overrides pass:
  // where the store's keys come from the environment (infra/k8s/registry.yaml), not the file.
  const storageOverrides = Object.entries(process.env).filter(([name]) => name.startsWith('REGISTRY_STORAGE_'));
  const { stdout } = await run('docker-registry', ['garbage-collect', configFile], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...Object.fromEntries(storageOverrides) },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30 * 60 * 1000,
  });
  const summary = /(\d+) blobs marked, (\d+) blobs and (\d+) manifests eligible for deletion/.exec(stdout);
  if (!summary) throw new Error(`garbage-collect printed no summary: ${stdout.slice(-500)}`);
  const digests = [...stdout.matchAll(/blob eligible for deletion: (sha256:[0-9a-f]{64})/g)].map((m) => m[1]!);
  return {
    kept: Number(summary[1]),
    blobs: Number(summary[2]),
    manifests: Number(summary[3]),
    digests: digests.slice(0, 50),
    all: digests,
  };
}
