import { z } from 'zod';

// Every setting the platform reads, parsed once at start. A bad value stops the process with a
// message naming the variable; nothing else in the code reads process.env.
const Env = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Port of the api (and, in development, the room). */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  /** The platform origin as browsers reach it: API and room shell live here. */
  PUBLIC_URL: z.url().optional(),
  /** Template of a project's content origin; `{slug}` is replaced. Build content never shares the platform origin. */
  CONTENT_ORIGIN: z.string().optional(),
  DATABASE_URL: z.string().min(1),
  REDIS_URL: z.string().min(1),
  S3_ENDPOINT: z.url().optional(),
  S3_BUCKET: z.string().min(1).default('rooms'),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.stringbool().default(true),
  /** Docker Engine API of the container hosts; podman's compatible socket locally. */
  DOCKER_HOST: z.string().optional(),
  /** BullMQ key prefix: lets tests and several platforms share one Redis. */
  QUEUE_PREFIX: z.string().regex(/^[a-z0-9-]+$/).default('rooms'),
  RUNNER_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Demo Rooms <rooms@localhost>'),
  /** Local data folder: the mail outbox in development. */
  DATA_DIR: z.string().default('.data'),
  /** Platform secret (hex, 32 bytes or more): key of the link-key encryption. */
  APP_SECRET: z.string().regex(/^[0-9a-f]{64,}$/i, 'must be at least 64 hex characters'),
  /** Operator token for /ops (dashboard, metrics). */
  OPS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long a sign-in session (cookie or CLI token) lives, in days. */
  SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
});

export type Config = z.infer<typeof Env> & { publicUrl: string; contentOrigin: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`bad configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const publicUrl = (c.PUBLIC_URL ?? `http://127.0.0.1:${c.PORT}`).replace(/\/$/, '');
  const port = new URL(publicUrl).port;
  const contentOrigin = c.CONTENT_ORIGIN ?? `http://{slug}.rooms.localhost${port ? `:${port}` : ''}`;
  return { ...c, publicUrl, contentOrigin };
}
