import { z } from 'zod';
import { contentDomainProblem } from '../rules/content-domain.js';
import { parseTrustProxy } from './trust-proxy.js';

// Every setting the platform reads, parsed once at start. A bad value stops the process with a
// message naming the variable; nothing else in the code reads process.env.
const Env = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Port of the api (and, in development, the room). */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  /**
   * Who may say who the client is (X-Forwarded-For): unset or 0, nobody (the peer is the client);
   * a hop count (1: one load balancer in front); or the proxies' addresses, comma-separated
   * (IPs, CIDR ranges, loopback, linklocal, uniquelocal), as fastify's trustProxy takes them.
   * Every per-address limit counts what this yields.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseTrustProxy(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** The platform origin as browsers reach it: API and room shell live here. */
  PUBLIC_URL: z.url().optional(),
  /** Template of a project's content origin; `{slug}` is replaced. Build content never shares the platform origin. */
  CONTENT_ORIGIN: z.string().optional(),
  DATABASE_URL: z.string().min(1),
  REDIS_URL: z.string().min(1),
  S3_ENDPOINT: z.url().optional(),
  /**
   * The store's address as builders' machines reach it, named by presigned upload URLs (issue 32):
   * S3_ENDPOINT is often an internal name (compose's `http://s3:9000`). S3_ENDPOINT when unset.
   */
  S3_PUBLIC_ENDPOINT: z.url().optional(),
  S3_BUCKET: z.string().min(1).default('rooms'),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.stringbool().default(true),
  /** Docker Engine API of the container hosts; podman's compatible socket locally. */
  DOCKER_HOST: z.string().optional(),
  /**
   * The image registry (CNCF Distribution with token auth) that `pitch deploy` pushes container
   * images to and the runner pulls from; unset, container builds travel as tarballs only.
   */
  REGISTRY_URL: z.url().optional(),
  /**
   * Where builders and the cluster's nodes reach the registry: the api's registry gate
   * (services/api/registry/registry-gate.routes.ts), which holds each workspace to its plan's
   * registry bytes and forwards to REGISTRY_URL. Default: the api's own PUBLIC_URL.
   */
  REGISTRY_PUBLIC_URL: z.url().optional(),
  /** The EC P-256 private key (PEM file) that signs registry tokens; its certificate is the registry's rootcertbundle. */
  REGISTRY_TOKEN_KEY_FILE: z.string().optional(),
  /** The registry's own config file, for `docker-registry garbage-collect` from the sweep (same host only). */
  REGISTRY_CONFIG: z.string().optional(),
  /**
   * The Redis database (redis://host:port/db) the registry keeps its blob descriptor cache in, when
   * it is configured with one: the garbage collection empties it before pushes reopen.
   */
  REGISTRY_CACHE_REDIS_URL: z.string().url().optional(),
  /** How long a registry token lasts, in seconds: a push of a few hundred MB fits well within it. */
  REGISTRY_TOKEN_SECONDS: z.coerce.number().int().min(30).max(3600).default(900),
  /** BullMQ key prefix: lets tests and several platforms share one Redis. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .default('rooms'),
  RUNNER_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** Port of the room when it runs as its own process (production); in development the api serves it. */
  ROOM_PORT: z.coerce.number().int().min(0).max(65535).default(8083),
  /** The workers' own small HTTP listener (/healthz, /readyz, /ops/metrics), on HOST. */
  WORKERS_PORT: z.coerce.number().int().min(0).max(65535).default(8082),
  // --- Load shedding (services/core/infra/http/load-shedding.ts): past any of these the api, the room and
  // the content origins answer 503 unavailable with Retry-After, /readyz included. 0 turns one off. ---
  /** Mean event-loop delay over a one-second sample, in milliseconds: the wait every request meets before its first line runs. */
  LOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(200),
  /** V8 heap in use, in MiB; default 90% of the heap's limit (past it V8 stops the process). */
  LOAD_MAX_HEAP_MB: z.coerce.number().int().min(0).optional(),
  /** Resident memory, in MiB; default 7/8 of the container's memory limit (448 of a 512Mi pod), none without a limit. */
  LOAD_MAX_RSS_MB: z.coerce.number().int().min(0).optional(),
  /** How long a process may take on SIGTERM to finish its requests or jobs before it exits, in seconds. */
  SHUTDOWN_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Demo Rooms <rooms@localhost>'),
  /** The service's name, as the room's made-with badge reads it on a plan without own branding. */
  SERVICE_NAME: z.string().min(1).max(40).default('Demo Rooms'),
  /** Local data folder: the mail outbox in development. */
  DATA_DIR: z.string().default('.data'),
  /** Largest screenshot a comment may carry (bytes, as sent); the shell sends none beyond it and says `too-large`. */
  SCREENSHOT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(20 * 1024 * 1024)
    .default(3 * 1024 * 1024),
  /** An OpenAI-compatible chat completions API for suggestWording (e.g. https://api.openai.com/v1); unset, it answers 503. */
  AI_BASE_URL: z.url().optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().default('gpt-4o-mini'),
  /** The service's own website, whose pages may read the community listings (CORS); the platform origin when unset. */
  SITE_ORIGIN: z.url().optional(),
  /**
   * How often the room shell sends the visible time it counted (ms). A quiet end lands near the
   * viewer's last moment, at most this long before it; tests shorten it to see beats sooner.
   */
  SHELL_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** Comments one viewer session may leave in an hour before 429. */
  COMMENTS_PER_SESSION_HOUR: z.coerce.number().int().min(1).default(30),
  /** Platform secret (hex, 32 bytes or more): key of the link-key encryption. */
  APP_SECRET: z.string().regex(/^[0-9a-f]{64,}$/i, 'must be at least 64 hex characters'),
  /** Operator token for /ops (dashboard, metrics). */
  OPS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long a sign-in session (cookie or CLI token) lives, in days. */
  SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  // --- External sign-in providers (docs/decisions/sign-in-providers-and-passkeys.md): each is set up when its client id and secret are set. ---
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  /** GitHub's web origin (authorize and token endpoints) and its API; a stand-in's in tests. */
  GITHUB_URL: z.url().default('https://github.com'),
  GITHUB_API_URL: z.url().default('https://api.github.com'),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** The OpenID issuer whose discovery document is read; a stand-in's in tests. */
  GOOGLE_ISSUER: z.url().default('https://accounts.google.com'),
  /** Passkeys: the WebAuthn relying-party id (a registrable domain, never an IP address); default PUBLIC_URL's host name. */
  WEBAUTHN_RP_ID: z.string().min(1).optional(),
  /** Passkeys: the origin a ceremony must come from; default PUBLIC_URL's origin. */
  WEBAUTHN_ORIGIN: z.url().optional(),

  // --- The runner (runner/, docs/runner.md): one container copy per viewer session. ---
  /** The runner's internal API as the room reaches it; default http://127.0.0.1:RUNNER_PORT. */
  RUNNER_URL: z.url().optional(),
  /** This runner host's data plane (docs/runner.md, "Data plane"): HAProxy's admin socket and the routes map file it loaded. */
  DATAPLANE_ADMIN_SOCKET: z.string().min(1).optional(),
  DATAPLANE_ROUTES_MAP: z.string().min(1).optional(),
  // What one viewer may hold of a host's data plane (docs/runner.md, "Data plane", "Limits"). HAProxy's
  // config reads them where it is rendered (infra/local/dataplane.mjs, DATAPLANE_LIMIT_DEFAULTS: the same defaults).
  /** Connections one address holds open to the data plane, idle ones included; one more is closed at once. */
  DATAPLANE_MAX_CONN_PER_SOURCE: z.coerce.number().int().min(1).default(200),
  /** Requests in flight and open WebSockets to one copy, whoever holds its token; past it, 429. */
  DATAPLANE_MAX_CONN_PER_COPY: z.coerce.number().int().min(1).default(64),
  /** Requests to one copy in any 10 s; past it, 429. */
  DATAPLANE_COPY_REQUESTS_PER_10S: z.coerce.number().int().min(1).default(2000),
  /** A WebSocket to a copy silent both ways this long is closed (seconds). */
  DATAPLANE_TUNNEL_IDLE_S: z.coerce.number().int().min(1).default(300),
  /** Addresses or CIDR ranges (comma-separated) the per-source cap does not count: the room's, a load balancer's. */
  DATAPLANE_UNCAPPED_SOURCES: z.string().optional(),
  /** The key of the copy tokens the room mints and the data plane checks (hex); without it the room mints none and carries every copy byte itself. */
  COPY_TOKEN_KEY: z
    .string()
    .regex(/^[0-9a-f]{64,}$/i, 'must be at least 64 hex characters')
    .optional(),
  /** This runner's instance id, on every copy's labels: a restarted runner adopts only copies carrying it. Keep it stable per host; default the host name. */
  RUNNER_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lower-case letters, digits and hyphens, at most 40')
    .optional(),
  /** The runner fleet this runner joins and the room and api place copies in (runner_hosts.fleet); one per platform. */
  RUNNER_FLEET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lower-case letters, digits and hyphens, at most 40')
    .default('default'),
  /** This runner's API as the room and the api reach it from their hosts; default http://127.0.0.1:RUNNER_PORT. */
  RUNNER_ADVERTISE_URL: z.url().max(500).optional(),
  /** Where viewers' copy traffic to this host goes (its data-plane proxy); unset while the room proxies copies itself. */
  RUNNER_COPY_ORIGIN: z.url().max(500).optional(),
  /** A host that has not beaten for this long is lost: a surviving runner ends its copies once (seconds; it beats every 5). */
  RUNNER_HOST_LOST_S: z.coerce.number().int().min(10).max(3600).default(20),
  /** Only these workspaces (comma-separated ids) are served, e.g. a dedicated host; unset serves all. */
  RUNNER_WORKSPACES: z.string().optional(),
  /** Copies this host runs at once (warm, starting, running and paused). */
  RUNNER_HOST_CAPACITY: z.coerce.number().int().min(0).default(20),
  /**
   * Copies a host starts at once; more admitted wait their turn (JupyterHub's concurrent_spawn_limit).
   * A crowd's starts then reach the database and the engine a few dozen at a time, and the next
   * viewers' admissions are not stuck behind them (docs/scale.md "Admission").
   */
  RUNNER_START_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /**
   * New viewers a host holds undecided at once; past it a newcomer is told at once to ask again in
   * a second or two (high demand, nothing recorded) instead of waiting in a line of calls that
   * could outlast their timeout (JupyterHub's 429 with a jittered Retry-After; docs/scale.md).
   * 5,000: over h2c a held newcomer costs a stream, not a connection, and a crowd's host decides
   * a few hundred a second at the least, within the room's 25 s for an enter; at 1,000 a
   * 10,000 burst's newcomers were sent back 1,200–21,000 times, each a second or more later.
   */
  RUNNER_ARRIVALS_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(5000),
  /** Per copy: memory (MiB, no swap), CPU (cores), processes. */
  RUNNER_COPY_MEMORY_MB: z.coerce.number().int().min(32).default(256),
  RUNNER_COPY_CPUS: z.coerce.number().positive().max(64).default(0.5),
  RUNNER_COPY_PIDS: z.coerce.number().int().min(16).default(128),
  /** Size of each of a copy's writable tmpfs mounts, /app and /tmp (MB; RAM, within its memory). */
  RUNNER_COPY_WRITABLE_MB: z.coerce.number().int().min(1).max(4096).default(64),
  /** Where the runner mounts each copy's writable tmpfs on podman (default DATA_DIR/copies); podman must see the same path. */
  RUNNER_WRITABLE_DIR: z.string().optional(),
  /** The PORT a copy is told to listen on (each copy has its own network, so all may share it). */
  RUNNER_COPY_PORT: z.coerce.number().int().min(1024).max(65535).default(8080),
  /** Time a copy has from start to answer its health path 200, in seconds. */
  RUNNER_HEALTH_TIMEOUT_S: z.coerce.number().positive().default(30),
  /**
   * Time a whole start has, in seconds: the image, the engine's start (a pod's scheduling and pull
   * included) and the health path, from the moment the runner begins it (KubeSpawner's start_timeout).
   * Past it the start is cut, the copy fails `deadline` and its slot is free. The health timeout is
   * the probe's own budget inside it: keep this above it plus the engine's start (120 = 30 + 90).
   */
  RUNNER_START_DEADLINE_S: z.coerce.number().positive().default(120),
  /** A viewer's copy without activity this long is paused; paused this long, removed (seconds). */
  RUNNER_IDLE_PAUSE_S: z.coerce.number().positive().default(300),
  RUNNER_IDLE_REMOVE_S: z.coerce.number().positive().default(1800),
  /** No copy lives longer than this from its start (seconds). */
  RUNNER_MAX_AGE_S: z.coerce
    .number()
    .positive()
    .default(4 * 3600),
  /** Warm copies per live build at most; the plan's warmCopies up to this. 0 turns the pool off. */
  RUNNER_WARM_MAX: z.coerce.number().int().min(0).default(2),
  /** Reconcile engine, records and live builds every this many seconds (jittered). */
  RUNNER_RECONCILE_S: z.coerce.number().positive().default(30),
  /** Reconcile this host's billed seconds with the engine's record every this many seconds, over the last hour (issue 46). */
  RUNNER_USAGE_RECONCILE_S: z.coerce.number().positive().default(300),
  /** Address pool for the copies' own networks, cut into /29s. */
  RUNNER_SUBNETS: z
    .string()
    .regex(/^\d+\.\d+\.\d+\.\d+\/(8|9|1\d|2[0-8])$/, 'an IPv4 CIDR, /8 to /28')
    .default('10.213.0.0/16'),
  /** The platform's monthly spend limit on demo containers (USD); unset means none. */
  RUNNER_SPEND_LIMIT_USD: z.coerce.number().min(0).optional(),
  /** What one container-hour costs the platform (USD), to weigh usage against the limit. */
  RUNNER_COPY_HOUR_USD: z.coerce.number().min(0).default(0.01),
  /**
   * Firewall copies off the host's own ports (iptables; needs root). auto and on install it; when
   * they cannot, auto starts no copies (and /readyz says why), on does not start. Only off runs
   * copies unguarded, with a warning at start.
   */
  RUNNER_HOST_GUARD: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Sign-in requests (emailed links and device codes) one client address may make per 15 minutes. */
  SIGN_IN_PER_IP: z.coerce.number().int().min(1).default(60),
  /** Emailed sign-in links one address may be sent per 15 minutes. */
  SIGN_IN_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  /** The iptables command the host guard runs (a path where it is not on PATH). */
  RUNNER_IPTABLES: z.string().min(1).default('iptables'),
  /**
   * Where copies run (docs/kubernetes.md): `docker`, the Docker Engine API at DOCKER_HOST (podman
   * locally); `kubernetes`, a pod per copy in RUNNER_K8S_NAMESPACE of the cluster KUBECONFIG names
   * (in a pod: the cluster it runs in, through its service account).
   */
  RUNNER_ENGINE: z.enum(['docker', 'kubernetes']).default('docker'),
  /** Read by @kubernetes/client-node itself (loadFromDefault): the kubeconfig file; unset in a pod, the pod's service account. */
  KUBECONFIG: z.string().optional(),
  /** The namespace of copies' pods and pull secrets; default the kubeconfig context's, else `default`. */
  RUNNER_K8S_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a Kubernetes namespace name')
    .optional(),
  /** The platform's registry as the cluster's nodes reach it (`host[:port]`); default REGISTRY_URL's host. */
  RUNNER_K8S_REGISTRY_HOST: z.string().max(255).optional(),
  /** Engine calls in flight at once: the engine serialises much, and an unbounded burst only queues there. */
  RUNNER_ENGINE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** Largest image archive (a bundle's unpacked tar) the runner loads into its engine, in bytes: bounds the engine host's disk. Checked before a load and counted during it. */
  RUNNER_MAX_IMAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 1024 ** 3),

  // --- Builds (services/api/deploy, workers/bundle-check). ---
  /** How long createBuild waits for its unpack or bundle check before answering 503 and giving the deploy up, in milliseconds. */
  BUILD_WAIT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 60 * 1000),
  /** A container bundle's limits at check time: entries, bytes of its small JSON files held in memory, bytes unpacked (the tar inside the gzip). */
  BUNDLE_MAX_ENTRIES: z.coerce.number().int().min(1).default(2_000),
  BUNDLE_MAX_HELD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(16 * 1024 * 1024),
  BUNDLE_MAX_UNPACKED_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 1024 ** 3),

  // --- Webhooks (issue 34; services/core/infra/outbound, workers/webhook-deliver; docs/decisions/webhooks.md). ---
  /**
   * Local development only: let endpoints be http:// and private, loopback or link-local
   * addresses (a receiver on this machine). Refused in production.
   */
  WEBHOOKS_ALLOW_PRIVATE: z.stringbool().default(false),
  /** A PEM file of certificate authorities deliveries trust besides the system's: tests' self-signed receiver. */
  WEBHOOKS_EXTRA_CA_FILE: z.string().min(1).optional(),
  /** Attempts per delivery (a series), the first included; with the back-off below, 13 span about 23 hours. */
  WEBHOOKS_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(13),
  /** The first retry's wait, in milliseconds; each next one doubles it (20 s … 11.4 h). Tests shorten it. */
  WEBHOOKS_BACKOFF_MS: z.coerce.number().int().min(1).default(20_000),
  /** Time to open the connection (TCP and TLS), then to receive the answer, in milliseconds. */
  WEBHOOKS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
  WEBHOOKS_RESPONSE_TIMEOUT_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
  /** Deliveries in a row whose every attempt failed, after which the endpoint is disabled (also after 24 h of nothing but failures). */
  WEBHOOKS_DISABLE_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  /**
   * Attempts one workspace may have in flight at once, over every worker (security-4 M3): an
   * endpoint that never answers holds at most these of webhook.deliver's 16 slots per process.
   */
  WEBHOOKS_WORKSPACE_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
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
  // In production a content domain beside the platform's would let builds toss cookies at it.
  const problem = c.NODE_ENV === 'production' ? contentDomainProblem(publicUrl, contentOrigin) : null;
  if (problem) throw new Error(`bad configuration:\n  CONTENT_ORIGIN: ${problem}`);
  if (c.NODE_ENV === 'production' && c.WEBHOOKS_ALLOW_PRIVATE)
    throw new Error('bad configuration:\n  WEBHOOKS_ALLOW_PRIVATE: local development only, never in production');
  return { ...c, publicUrl, contentOrigin };
}

/** Only the object store's settings, for a process (the operator's command) that needs no others. */
export function loadStorageConfig(env: NodeJS.ProcessEnv = process.env) {
  return Env.pick({
    S3_ENDPOINT: true,
    S3_PUBLIC_ENDPOINT: true,
    S3_BUCKET: true,
    S3_REGION: true,
    S3_ACCESS_KEY_ID: true,
    S3_SECRET_ACCESS_KEY: true,
    S3_FORCE_PATH_STYLE: true,
  }).parse(env);
}

/** The runner's internal API as the room and the api reach it: RUNNER_URL, else the runner on this host. */
export const runnerBaseUrl = (c: Pick<Config, 'RUNNER_URL' | 'RUNNER_PORT'>) => c.RUNNER_URL ?? `http://127.0.0.1:${c.RUNNER_PORT}`;
