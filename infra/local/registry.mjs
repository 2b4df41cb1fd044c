// The local image registry: Debian's docker-registry (CNCF Distribution 2.8) as a child, on
// loopback, with token auth: it trusts tokens signed by the platform's registry key, whose
// certificate is generated here next to it (<data>/registry-token.key and .crt, 0600).
//
// Storage: the platform's S3 store, in a bucket of its own (REGISTRY_S3_BUCKET, default
// `registry`), as in production. The local store answers what Distribution's s3 driver needs
// (infra/local/s3-multipart.mjs; docs/decisions/registry-and-images.md).
// REGISTRY_STORAGE=filesystem keeps the blobs under <data>/registry instead.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, run, startProcess, which } from './lib.mjs';
import { flushRedisDb } from './redis.mjs';
import { s3Client } from './s3.mjs';

/** Names the registry and the api's tokens agree on (services/core/infra/registry/registry-token.ts). */
const SERVICE = 'demo-rooms-registry';
const ISSUER = 'demo-rooms';

/** The signing key and its self-signed certificate, made once per data dir. */
export async function ensureRegistryKeys(dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const keyFile = path.join(dataDir, 'registry-token.key');
  const certFile = path.join(dataDir, 'registry-token.crt');
  if (!existsSync(keyFile)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  }
  if (!existsSync(certFile)) {
    // Node makes no certificates; openssl does (the registry reads only certificates in its root bundle).
    await run('openssl', [
      'req',
      '-x509',
      '-new',
      '-key',
      keyFile,
      '-subj',
      '/CN=demo-rooms registry tokens',
      '-days',
      '3650',
      '-out',
      certFile,
    ]);
  }
  return { keyFile, certFile };
}

/** The bucket the registry keeps its blobs and manifests in: one of its own, not the platform's. */
export const registryBucket = (env = process.env) => env.REGISTRY_S3_BUCKET ?? 'registry';

/**
 * The registry's config (JSON is YAML), for the platform's S3 store (default) or the filesystem.
 * garbage-collect reads the same file (workers/registry-gc), so it collects what the registry stores.
 */
export function registryConfig({ port, storageDir, certFile, realm, env = process.env, cacheRedis }) {
  const storage =
    env.REGISTRY_STORAGE === 'filesystem'
      ? { filesystem: { rootdirectory: storageDir } }
      : {
          s3: {
            accesskey: env.S3_ACCESS_KEY_ID,
            secretkey: env.S3_SECRET_ACCESS_KEY,
            region: env.S3_REGION ?? 'us-east-1',
            regionendpoint: env.S3_ENDPOINT,
            forcepathstyle: env.S3_FORCE_PATH_STYLE === 'true',
            v4auth: true,
            bucket: registryBucket(env),
            secure: env.S3_ENDPOINT?.startsWith('https:') ?? true,
            // A finished blob is moved into place with one CopyObject up to 5 GiB (S3's limit for
            // one copy) rather than a multipart copy (UploadPartCopy), which s3rver lacks; a layer
            // is capped far below (BUNDLE_MAX_UNPACKED_BYTES).
            multipartcopythresholdsize: 5 * 1024 ** 3,
          },
        };
  return {
    version: 0.1,
    log: { level: 'error', accesslog: { disabled: true } },
    storage: {
      ...storage,
      // Manifests of deleted builds are deleted through the API; garbage-collect then frees their layers.
      delete: { enabled: true },
      // Redirects would send clients straight to the store, which a local one does not serve to them.
      redirect: { disable: true },
      // An upload never finished is removed after a day, as in production (infra/k8s/registry.yaml):
      // the api counts its bytes against the workspace until then (registry-usage.sql.ts).
      maintenance: { uploadpurging: { enabled: true, age: '24h', interval: '1h', dryrun: false } },
      // Blob descriptors (a blob's size, and that a repository holds it) kept in a Redis database
      // of the registry's own: a push's and a pull's existence checks stop being storage listings.
      // After garbage-collect a kept descriptor would answer for a blob that is gone, so the
      // collection empties that database before pushes reopen (registry-gc.sweep.ts,
      // REGISTRY_CACHE_REDIS_URL), and the launcher empties it at each start (the store may have
      // changed meanwhile). docs/decisions/registry-and-images.md.
      ...(cacheRedis ? { cache: { blobdescriptor: 'redis' } } : {}),
    },
    ...(cacheRedis ? { redis: redisOf(cacheRedis) } : {}),
    http: { addr: `127.0.0.1:${port}`, secret: randomBytes(24).toString('hex') },
    auth: { token: { realm, service: SERVICE, issuer: ISSUER, rootcertbundle: certFile } },
  };
}

/** The database number of a redis://host:port/db URL (0 when it names none). */
const redisDb = (url) => Number(new URL(url).pathname.slice(1) || 0);

/** Distribution's `redis` section for a redis://host:port/db URL (a loopback one: no password). */
function redisOf(url) {
  return { addr: new URL(url).host, db: redisDb(url), dialtimeout: '1s', readtimeout: '1s', writetimeout: '1s' };
}

/** Creates the registry's bucket in the S3 store when missing (MinIO and s3rver start without it). */
async function ensureBucket(env) {
  const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(env);
  try {
    await client.send(new CreateBucketCommand({ Bucket: registryBucket(env) })).catch((error) => {
      if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(error.name)) throw error;
    });
  } finally {
    client.destroy();
  }
}

/** `s3` is the S3 store's env (S3_ENDPOINT, keys, …), started or given before the registry. */
export async function startRegistry({ dataDir, port: preferred, quiet, s3 = {}, cacheRedis }) {
  const binary = which('docker-registry');
  if (!binary) throw new Error('docker-registry is not installed (apt-get install docker-registry), or set REGISTRY_URL');
  const port = await freePort(preferred ?? Number(process.env.REGISTRY_PORT ?? 5010));
  const storageDir = path.join(dataDir, 'registry');
  mkdirSync(storageDir, { recursive: true });
  const { keyFile, certFile } = await ensureRegistryKeys(dataDir);
  const configFile = path.join(dataDir, 'registry.yml');
  const realm = `${process.env.PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`}/v2/token`;
  const env = { ...process.env, ...s3 };
  if (env.REGISTRY_STORAGE !== 'filesystem') await ensureBucket(env);
  if (cacheRedis) await flushRedisDb(cacheRedis, redisDb(cacheRedis));
  const config = registryConfig({ port, storageDir, certFile, realm, env, cacheRedis });
  writeFileSync(configFile, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  const url = `http://127.0.0.1:${port}`;
  // A clean environment: Distribution reads every REGISTRY_* variable as a config override, and
  // ours (REGISTRY_URL, REGISTRY_TOKEN_KEY_FILE) are not its fields.
  // Distribution logs every 404 (each HEAD of a blob a push lacks) as an error: the tests' log
  // (quiet) drops its output; a failure to start still shows in the harness's message.
  const [command, args] = quiet
    ? ['/bin/sh', ['-c', `exec ${binary} serve "$0" 2>/dev/null`, configFile]]
    : [binary, ['serve', configFile]];
  const registry = await startProcess('registry', command, args, {
    env: { PATH: process.env.PATH },
    program: 'docker-registry',
    waitingFor: 'the registry to answer /v2/',
    ready: async () => (await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(2_000) })).status === 401,
  });
  const cacheEnv = cacheRedis ? { REGISTRY_CACHE_REDIS_URL: cacheRedis } : {};
  return { env: { REGISTRY_URL: url, REGISTRY_TOKEN_KEY_FILE: keyFile, REGISTRY_CONFIG: configFile, ...cacheEnv }, port, ...registry };
}
