// The real components the platform talks to (Postgres, Redis, an S3 store, a container engine,
// an image registry).
// Each is given by URL in the environment, reused from a running `npm start` (tests only), or
// started here under the data dir. What was started is recorded in <data>/components.json, so
// a later run can find a live set to reuse, or clean up after a run that was killed.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commandLine, isAlive, logger, seconds, terminate } from './lib.mjs';
import { ensureSystemPackages } from './packages.mjs';
import { pingEngine, startPodman } from './podman.mjs';
import { psql, startPostgres } from './postgres.mjs';
import { redisCommands, startRedis } from './redis.mjs';
import { startRegistry } from './registry.mjs';
import { startS3 } from './s3.mjs';

const S3_KEYS = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_REGION', 'S3_FORCE_PATH_STYLE'];

// For each: the variable that gives it by URL, the env it contributes, how to start it, how to
// check that a recorded one still answers, and a piece of its command line (a pid can be reused).
const COMPONENTS = {
  postgres: {
    given: 'DATABASE_URL',
    envOf: (env) => ({ DATABASE_URL: env.DATABASE_URL }),
    start: startPostgres,
    answers: (env) => psql(env.DATABASE_URL, 'select 1'),
    mark: 'postgres',
  },
  redis: {
    given: 'REDIS_URL',
    envOf: (env) => ({ REDIS_URL: env.REDIS_URL }),
    start: startRedis,
    answers: async (env) => (await redisCommands(env.REDIS_URL, ['PING'])) === '+PONG',
    mark: 'redis-server',
  },
  s3: {
    given: 'S3_ENDPOINT',
    envOf: (env) => Object.fromEntries(S3_KEYS.filter((key) => env[key] !== undefined).map((key) => [key, env[key]])),
    start: startS3,
    answers: async (env) => (await fetch(env.S3_ENDPOINT, { signal: AbortSignal.timeout(2_000) })).status > 0,
    mark: 's3-server.mjs',
  },
  podman: {
    given: 'DOCKER_HOST',
    envOf: (env) => ({ DOCKER_HOST: env.DOCKER_HOST }),
    start: startPodman,
    answers: (env) => pingEngine(env.DOCKER_HOST),
    mark: 'system service',
  },
  registry: {
    given: 'REGISTRY_URL',
    envOf: (env) => ({
      REGISTRY_URL: env.REGISTRY_URL,
      REGISTRY_TOKEN_KEY_FILE: env.REGISTRY_TOKEN_KEY_FILE,
      REGISTRY_CONFIG: env.REGISTRY_CONFIG,
      ...(env.REGISTRY_CACHE_REDIS_URL ? { REGISTRY_CACHE_REDIS_URL: env.REGISTRY_CACHE_REDIS_URL } : {}),
    }),
    start: startRegistry,
    // Token auth: /v2/ without a token answers 401 with the challenge.
    answers: async (env) => (await fetch(`${env.REGISTRY_URL}/v2/`, { signal: AbortSignal.timeout(2_000) })).status === 401,
    mark: 'docker-registry',
  },
};

/** The Redis database of each role's registry's blob descriptor cache (the platform's are 0 and 1). */
const REGISTRY_CACHE_DB = { start: 2, test: 3 };

/**
 * Starts what is needed. `reuseFrom` is another data dir whose live components may be shared
 * (the tests reuse those of `npm start`). `fast` trades durability for speed and keeps the
 * Postgres log in its file (test data).
 * Returns the combined env, where each component came from, and stop().
 */
export async function startComponents({ dataDir, role, reuseFrom, fast = false }) {
  const log = logger(role);
  const previous = await claimDataDir(dataDir, role);
  const reusable = reuseFrom ? liveComponents(reuseFrom) : {};

  const origins = {};
  const env = {};
  const toStart = [];
  for (const [name, component] of Object.entries(COMPONENTS)) {
    if (process.env[component.given]) {
      origins[name] = 'given';
      Object.assign(env, component.envOf(process.env));
    } else if (reusable[name] && (await component.answers(reusable[name].env).catch(() => false))) {
      origins[name] = 'reused';
      Object.assign(env, reusable[name].env);
    } else {
      toStart.push(name);
    }
  }
  for (const [name, origin] of Object.entries(origins)) {
    log(`${name}: ${origin === 'given' ? 'given by the environment' : `reusing the one of ${reuseFrom}`}`);
  }
  await ensureSystemPackages(toStart);

  // Started side by side: the slowest (initdb on a first run) sets the pace.
  const started = {};
  const failures = [];
  const startOne = async (name, more = {}) => {
    const began = Date.now();
    try {
      const port = previous?.components?.[name]?.port; // keep URLs stable across restarts
      started[name] = await COMPONENTS[name].start({ dataDir, port, fast, quiet: fast, ...more });
      origins[name] = 'started';
      log(`${name} started in ${seconds(Date.now() - began)}`);
    } catch (error) {
      failures.push(`${name}: ${error.message}`);
    }
  };
  // The registry stores its blobs in the S3 store: it starts once the store answers.
  await Promise.all(toStart.filter((name) => name !== 'registry').map((name) => startOne(name)));
  if (toStart.includes('registry') && !failures.length) {
    const s3 = started.s3?.env ?? COMPONENTS.s3.envOf(env);
    // Its blob descriptor cache in a Redis database of its own, one per role: a registry of
    // `npm start` and one of the tests each keep theirs (two stores must never share one).
    const redis = (started.redis?.env ?? COMPONENTS.redis.envOf(env)).REDIS_URL;
    const cacheRedis = redis ? `redis://${new URL(redis).host}/${REGISTRY_CACHE_DB[role] ?? REGISTRY_CACHE_DB.start}` : undefined;
    await startOne('registry', { s3, cacheRedis });
  }
  const state = { role, owner: process.pid, running: true, startedAt: new Date().toISOString(), components: {} };
  for (const [name, { env: own, pid, port }] of Object.entries(started)) {
    Object.assign(env, own);
    state.components[name] = { pid, port, env: own };
  }

  let stopping = false;
  const stop = async () => {
    stopping = true;
    await Promise.all(
      Object.entries(started).map(async ([name, component]) => {
        const began = Date.now();
        try {
          await component.stop();
          log(`${name} stopped in ${seconds(Date.now() - began)}`);
        } catch (error) {
          log(`${name} did not stop cleanly: ${error.message}`);
        }
      }),
    );
    writeState(dataDir, { ...state, running: false, stoppedAt: new Date().toISOString() });
  };

  if (failures.length) {
    await stop();
    throw new Error(`could not start ${failures.join('\n')}`);
  }
  writeState(dataDir, state);
  return {
    env,
    origins,
    stop,
    /** Calls `handler(name, how)` when a started component dies while we are not stopping it. */
    onUnexpectedExit(handler) {
      for (const [name, component] of Object.entries(started)) {
        component.exited?.then((how) => stopping || handler(name, how));
      }
    },
    /** Records the launcher's own children, so a run after a crash can stop them. */
    recordProcesses(processes) {
      state.processes = processes;
      writeState(dataDir, state);
    },
  };
}

export const statePath = (dataDir) => path.join(dataDir, 'components.json');

export function readState(dataDir) {
  try {
    return JSON.parse(readFileSync(statePath(dataDir), 'utf8'));
  } catch {
    return null;
  }
}

function writeState(dataDir, state) {
  const file = statePath(dataDir);
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

const ownerAlive = (state) => state?.running && isAlive(state.owner) && commandLine(state.owner).includes('infra/local/');

/**
 * Refuses a data dir another live launcher uses; after a launcher that was killed, stops the
 * processes it left (Postgres is handled by its own stale-pid check). Returns the old state.
 */
export async function claimDataDir(dataDir, role) {
  const log = logger(role);
  mkdirSync(dataDir, { recursive: true });
  const state = readState(dataDir);
  if (!state) return null;
  if (ownerAlive(state)) {
    throw new Error(`${dataDir} is in use by a running ${state.role} (pid ${state.owner}); stop it first`);
  }
  const leftovers = [
    ...Object.entries(state.components ?? {})
      .filter(([name]) => name !== 'postgres')
      .map(([name, { pid }]) => ({ name, pid, mark: COMPONENTS[name]?.mark, group: false })),
    ...Object.entries(state.processes ?? {}).map(([name, pid]) => ({ name, pid, mark: 'tsx', group: true })),
  ];
  for (const { name, pid, mark, group } of leftovers) {
    if (mark && isAlive(pid) && commandLine(pid).includes(mark)) {
      log(`stopping ${name} (pid ${pid}) left running by an earlier run`);
      await terminate(pid, { group, timeoutMs: 5_000 });
    }
  }
  return state;
}

/** The components another data dir's live launcher started, as { name: { env } }. */
function liveComponents(dataDir) {
  const state = readState(dataDir);
  if (!ownerAlive(state)) return {};
  return Object.fromEntries(
    Object.entries(state.components ?? {})
      .filter(([, { pid }]) => isAlive(pid))
      .map(([name, { env }]) => [name, { env }]),
  );
}
