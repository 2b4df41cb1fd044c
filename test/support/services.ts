import { readFileSync } from 'node:fs';

// The real components the tests talk to. `npm test` (infra/local/test.mjs) exports them and sets
// TEST_ENV_FILE; a hand-run `npx vitest` reads the file that script wrote instead, so it never
// picks up a DATABASE_URL that merely happens to be in the shell.
const FILE = new URL('../../.data/test/test-env.json', import.meta.url);

export type TestEnv = {
  NODE_ENV: string;
  DATA_DIR: string;
  DATABASE_URL: string;
  REDIS_URL: string;
  S3_ENDPOINT: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
  S3_REGION: string;
  S3_FORCE_PATH_STYLE: string;
  DOCKER_HOST: string;
  CONTAINERS_CONF: string;
  APP_SECRET: string;
  OPS_TOKEN: string;
  /** The data planes' copy-token key (every test runner's data plane, and the room, sign and check with it). */
  COPY_TOKEN_KEY: string;
  SMTP_URL?: string;
  REGISTRY_URL?: string;
  REGISTRY_TOKEN_KEY_FILE?: string;
  REGISTRY_CONFIG?: string;
  REGISTRY_CACHE_REDIS_URL?: string;
};

export function testEnv(): TestEnv {
  if (process.env.TEST_ENV_FILE) return process.env as unknown as TestEnv;
  try {
    return JSON.parse(readFileSync(FILE, 'utf8')) as TestEnv;
  } catch {
    throw new Error(`no test services: run \`npm test\`, or \`node infra/local/test.mjs --services\` before \`npx vitest\``);
  }
}
