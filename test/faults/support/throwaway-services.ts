import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSql } from '../../../services/core/infra/db.js';
import { migrate } from '../../../services/core/infra/migrate.js';

// Postgres, Redis and an S3 store of a fault test's own, under a temp folder and on free ports,
// started by the launcher's own helpers (infra/local). A fault test stops and restarts them at
// will; the shared test services that other test files use are never touched.

export const repoRoot = path.resolve(import.meta.dirname, '../../..');

interface Started {
  env: Record<string, string>;
  port: number;
  stop(): Promise<unknown>;
}
type Starter = (opts: { dataDir: string; port?: number; fast?: boolean; quiet?: boolean; bucket?: string }) => Promise<Started>;

// The helpers are plain .mjs (they run before `npm ci`); imported by URL, typed here.
const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(repoRoot, 'infra/local', file)).href)) as T;
const { startPostgres } = await load<{ startPostgres: Starter }>('postgres.mjs');
const { startRedis } = await load<{ startRedis: Starter }>('redis.mjs');
const { startS3 } = await load<{ startS3: Starter }>('s3.mjs');

export interface ThrowawayServices {
  dir: string;
  /** What the platform's processes need to reach these services, with secrets of their own. */
  env: Record<string, string>;
  /** Stops Postgres (fast: clients are cut off) and starts it again on the same port and data. */
  restartPostgres(opts?: { downMs?: number }): Promise<void>;
  /** Stops Redis (SIGTERM: it writes its append-only file) and starts it again on the same port and data. */
  restartRedis(opts?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function startThrowawayServices(): Promise<ThrowawayServices> {
  const dir = mkdtempSync(path.join(tmpdir(), 'faults-'));
  // As root, Postgres runs as the postgres user, who must be able to enter the folder.
  chmodSync(dir, 0o755);
  let postgres: Started | undefined;
  let redis: Started | undefined;
  let s3: Started | undefined;
  const stopAll = async () => {
    await Promise.allSettled([postgres?.stop(), redis?.stop(), s3?.stop()]);
  };
  try {
    [postgres, redis, s3] = await Promise.all([
      startPostgres({ dataDir: dir, fast: true, quiet: true }),
      startRedis({ dataDir: dir }),
      startS3({ dataDir: dir, bucket: 'rooms' }),
    ]);
    const sql = createSql(postgres.env.DATABASE_URL, { max: 1 });
    try {
      await migrate(sql);
    } finally {
      await sql.end();
    }
  } catch (err) {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const env: Record<string, string> = {
    ...postgres.env,
    ...redis.env,
    ...s3.env,
    APP_SECRET: randomBytes(32).toString('hex'),
    OPS_TOKEN: randomBytes(24).toString('hex'),
    DATA_DIR: dir,
    NODE_ENV: 'test',
    QUEUE_PREFIX: 'rooms',
  };

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    dir,
    env,
    async restartPostgres({ downMs = 0 } = {}) {
      const port = postgres!.port;
      await postgres!.stop();
      await pause(downMs);
      postgres = await startPostgres({ dataDir: dir, port, fast: true, quiet: true });
      if (postgres.port !== port) throw new Error(`postgres came back on port ${postgres.port}, not ${port}`);
    },
    async restartRedis({ downMs = 0 } = {}) {
      const port = redis!.port;
      await redis!.stop();
      await pause(downMs);
      redis = await startRedis({ dataDir: dir, port });
      if (redis.port !== port) throw new Error(`redis came back on port ${redis.port}, not ${port}`);
    },
    async stop() {
      await stopAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
