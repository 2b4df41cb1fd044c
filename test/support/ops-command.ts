import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Platform } from './platform.js';

const run = promisify(execFile);

/**
 * `npm run ops` as an operator runs it: a process of its own against the platform's Postgres and
 * object store (DATABASE_URL, S3_*). Exit code, stdout and stderr, whether it failed or not.
 */
export async function opsCommand(platform: Platform, ...args: string[]) {
  const c = platform.deps.config;
  const env = {
    ...process.env,
    DATABASE_URL: c.DATABASE_URL,
    S3_BUCKET: c.S3_BUCKET,
    S3_REGION: c.S3_REGION,
    S3_FORCE_PATH_STYLE: String(c.S3_FORCE_PATH_STYLE),
    ...(c.S3_ENDPOINT ? { S3_ENDPOINT: c.S3_ENDPOINT } : {}),
    ...(c.S3_ACCESS_KEY_ID ? { S3_ACCESS_KEY_ID: c.S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: c.S3_SECRET_ACCESS_KEY ?? '' } : {}),
  };
  try {
    const { stdout, stderr } = await run('node_modules/.bin/tsx', ['services/ops/main.ts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
