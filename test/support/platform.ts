import type { AddressInfo } from 'node:net';
import { buildApp } from '../../services/api/app.js';
import { createRoom } from '../../services/room/room-server.js';
import { createClient, SESSION_COOKIE } from '@demo-rooms/contract';
import { createRunnerClient, type RunnerClient } from '@demo-rooms/contract/runner';
import { loadConfig, runnerBaseUrl, type Config } from '../../services/core/infra/config.js';
import { createSql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { createMailer } from '../../services/core/infra/mailer.js';
import { createQueues } from '../../services/core/infra/queues.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { issueToken } from '../../services/ops/ops.service.js';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from './wait-for.js';
import { testEnv } from './services.js';
import type { DestinationStream } from 'pino';
import type { Handlers } from '../../services/api/routing/handler.js';

/**
 * A real api on a loopback port, wired to the real Postgres, Redis, S3 endpoint and engine that
 * infra/local/test.mjs started. Each test makes its own people, so tests never collide.
 */
export async function startPlatform(
  opts: { env?: Record<string, string>; handlers?: Handlers; logTo?: DestinationStream; workers?: boolean; runner?: RunnerClient } = {},
) {
  const overrides = opts.env ?? {};
  // Each platform gets its own queues, so parallel test files never take each other's jobs.
  // Load shedding by event-loop delay and resident memory is off unless a test turns it on: the
  // test's own code shares this event loop and process (building a large fixture would shed the
  // next request), and several platforms share one process (services/core/infra/http/load-shedding.int.test.ts).
  const shedding = { LOAD_MAX_EVENT_LOOP_DELAY_MS: '0', LOAD_MAX_RSS_MB: '0' };
  const env = {
    ...testEnv(),
    PORT: '0',
    QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? (opts.logTo ? 'info' : 'silent'),
    ...shedding,
    ...overrides,
  };
  const config0 = loadConfig(env);
  const log = createLogger({ name: 'api-test', level: config0.LOG_LEVEL, destination: opts.logTo });
  const sql = createSql(config0.DATABASE_URL, { max: 4 });
  const storage = createStorage(config0);
  const queues = createQueues(config0);
  const mailer = createMailer({ smtpUrl: undefined, from: config0.MAIL_FROM, dataDir: config0.DATA_DIR, log });
  // The public address is known only once listening, so the app is built with a placeholder and
  // the config object is completed in place before any request arrives.
  const config: Config = { ...config0 };
  // A test of several runner hosts brings its fleet's client (test/support/hosts/).
  const runner = opts.runner ?? createRunnerClient({ baseUrl: runnerBaseUrl(config0), appSecret: config0.APP_SECRET });
  const app = await buildApp(
    { config, sql, storage, queues, mailer, log, runner },
    { handlers: opts.handlers, alongside: createRoom({ config, sql, storage, log, runner }) },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const port = (app.server.address() as AddressInfo).port;
  if (!overrides.PUBLIC_URL)
    Object.assign(config, { publicUrl: baseUrl, contentOrigin: overrides.CONTENT_ORIGIN ?? `http://{slug}.rooms.localhost:${port}` });

  const deps = { config, sql, storage, queues, mailer, log, runner };
  // Imported only when asked for: most api tests need no workers.
  const workers = opts.workers
    ? (await import('../../workers/app.js')).buildWorkers({ config, sql, storage, log }, { queues: ['archive.unpack', 'bundle.check'] })
    : null;
  return {
    baseUrl,
    deps,
    /** A new person (unique email) with a bearer token, and a typed client signed in as them. */
    async person(opts: { plan?: string; kind?: 'cli' | 'connector' | 'web'; readOnly?: boolean; name?: string } = {}) {
      const email = `p-${crypto.randomUUID()}@example.com`;
      const { token } = await issueToken(sql, email, { kind: opts.kind, readOnly: opts.readOnly, name: opts.name });
      if (opts.plan)
        await sql`update workspaces set plan = ${opts.plan} where id = (select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email})`;
      // `browser`: the same token as the web app's cookie from the platform's own page, which is
      // what account power takes (services/api/auth/step-up.ts); meaningful for kind 'web'.
      const browser = createClient({ baseUrl, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: baseUrl } });
      return { email, token, client: createClient({ baseUrl, token }), browser };
    },
    /**
     * Signs in by an emailed link as a browser would: asks for the link (keeping the nonce cookie
     * it sets), reads it from the outbox and spends it with that cookie. Answers the session token.
     */
    async signInByMail(email: string, userAgent?: string): Promise<string> {
      const asked = await fetch(`${baseUrl}/api/auth/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      if (asked.status !== 200) throw new Error(`emailSignIn answered ${asked.status}`);
      const nonce = cookieValue(asked.headers, SIGN_IN_NONCE_COOKIE)!;
      const token = await mailedToken(config.DATA_DIR, email);
      const spent = await fetch(`${baseUrl}/api/auth/email/verify`, {
        method: 'POST',
        body: JSON.stringify({ token }),
        headers: {
          'content-type': 'application/json',
          cookie: `${SIGN_IN_NONCE_COOKIE}=${nonce}`,
          ...(userAgent ? { 'user-agent': userAgent } : {}),
        },
      });
      if (spent.status !== 200) throw new Error(`emailVerify answered ${spent.status}`);
      return cookieValue(spent.headers, SESSION_COOKIE)!;
    },
    /** A raw request: for refusals the typed client would not send. */
    async fetch(path: string, init: Omit<RequestInit, 'body'> & { body?: BodyInit | Buffer; token?: string; json?: unknown } = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      if (init.json !== undefined) headers.set('content-type', 'application/json');
      const res = await fetch(baseUrl + path, {
        ...init,
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : (init.body as BodyInit | undefined),
      });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, headers: res.headers, body };
    },
    async close() {
      await workers?.close();
      await app.close();
      await queues.close();
      await sql.end({ timeout: 2 });
    },
  };
}

export type Platform = Awaited<ReturnType<typeof startPlatform>>;

/** The browser nonce cookie emailSignIn sets (services/api/auth/auth.handlers.ts). */
export const SIGN_IN_NONCE_COOKIE = '__Host-pp_sign_in';

/** A cookie's value among a response's Set-Cookie headers. */
export function cookieValue(headers: Headers, name: string): string | undefined {
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    if (pair.slice(0, at).trim() === name) return decodeURIComponent(pair.slice(at + 1));
  }
  return undefined;
}

/** The token of the newest sign-in link mailed to `email` (the outbox folder; other mails skipped). */
export async function mailedToken(dataDir: string, email: string): Promise<string> {
  const link = await mailedSignInLink(dataDir, email);
  return new URL(link).searchParams.get('token')!;
}

/** Every mail to `email` in the outbox, newest first (the files are named by time, then address). */
export async function mailsTo(dataDir: string, email: string): Promise<string[]> {
  const outbox = join(dataDir, 'outbox');
  const files = (await readdir(outbox).catch(() => [] as string[]))
    .filter((f) => f.endsWith(`-${email.replace(/[^a-z0-9@.-]/gi, '_')}.txt`))
    .sort()
    .reverse();
  return Promise.all(files.map((f) => readFile(join(outbox, f), 'utf8')));
}

export async function mailedSignInLink(dataDir: string, email: string): Promise<string> {
  const linkIn = (text: string) => /(https?:\/\/\S+\/auth\/email\?token=[\w%-]+)/.exec(text)?.[1];
  return waitFor(`a sign-in link mailed to ${email}`, async () => {
    for (const text of await mailsTo(dataDir, email)) {
      const link = linkIn(text);
      if (link) return link;
    }
    return undefined;
  });
}
