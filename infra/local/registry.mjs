// The local image registry: Debian's docker-registry (CNCF Distribution 2.8) as a child, on
// loopback, with token auth: it trusts tokens signed by the platform's registry key, whose
// certificate is generated here next to it (<data>/registry-token.key and .crt, 0600).
//
// Storage: the filesystem under <data>/registry. Distribution's s3 driver cannot use the local
// S3 store (s3rver answers 501 to ListMultipartUploads, which the driver calls on every blob
// upload; see docs/decisions.md); on real S3 set REGISTRY_STORAGE=s3 and the registry uses the
// platform's bucket under the prefix `registry/`.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, run, startProcess, which } from './lib.mjs';

/** Names the registry and the api's tokens agree on (services/core/registry/registry-token.ts). */
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

/** The registry's config (JSON is YAML), for the filesystem or the platform's S3 bucket. */
export function registryConfig({ port, storageDir, certFile, realm, env = process.env }) {
  const storage =
    env.REGISTRY_STORAGE === 's3'
      ? {
          s3: {
            accesskey: env.S3_ACCESS_KEY_ID,
            secretkey: env.S3_SECRET_ACCESS_KEY,
            region: env.S3_REGION ?? 'us-east-1',
            regionendpoint: env.S3_ENDPOINT,
            bucket: env.S3_BUCKET ?? 'rooms',
            rootdirectory: '/registry',
            secure: env.S3_ENDPOINT?.startsWith('https:') ?? true,
          },
        }
      : { filesystem: { rootdirectory: storageDir } };
  return {
    version: 0.1,
    log: { level: 'error', accesslog: { disabled: true } },
    storage: {
      ...storage,
      // Manifests of deleted builds are deleted through the API; garbage-collect then frees their layers.
      delete: { enabled: true },
      // Redirects would send clients straight to the store, which a local one does not serve to them.
      redirect: { disable: true },
    },
    http: { addr: `127.0.0.1:${port}`, secret: randomBytes(24).toString('hex') },
    auth: { token: { realm, service: SERVICE, issuer: ISSUER, rootcertbundle: certFile } },
  };
}

export async function startRegistry({ dataDir, port: preferred, quiet }) {
  const binary = which('docker-registry');
  if (!binary) throw new Error('docker-registry is not installed (apt-get install docker-registry), or set REGISTRY_URL');
  const port = await freePort(preferred ?? Number(process.env.REGISTRY_PORT ?? 5010));
  const storageDir = path.join(dataDir, 'registry');
  mkdirSync(storageDir, { recursive: true });
  const { keyFile, certFile } = await ensureRegistryKeys(dataDir);
  const configFile = path.join(dataDir, 'registry.yml');
  const realm = `${process.env.PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`}/v2/token`;
  const config = registryConfig({ port, storageDir, certFile, realm });
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
  return { env: { REGISTRY_URL: url, REGISTRY_TOKEN_KEY_FILE: keyFile, REGISTRY_CONFIG: configFile }, port, ...registry };
}
