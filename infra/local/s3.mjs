// The local object store: s3rver (s3-server.mjs) storing under <data>/s3.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, repoRoot, startProcess, terminate } from './lib.mjs';

// s3rver accepts only these keys; they are not secrets.
export const S3RVER_KEYS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

export function s3Env(endpoint, bucket) {
  return {
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    ...S3RVER_KEYS,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
  };
}

export async function startS3({ dataDir, bucket = 'rooms', port: preferred }) {
  const directory = path.join(dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  const port = await freePort(preferred);
  const env = s3Env(`http://127.0.0.1:${port}`, bucket);
  // s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in its legacy
  // provider: without it every listing of more than 1,000 keys fails with a 500.
  const s3rver = await startProcess(
    's3',
    process.execPath,
    ['--openssl-legacy-provider', path.join(repoRoot, 'infra/local/s3-server.mjs'), directory, String(port), bucket],
    {
      program: 's3rver',
      waitingFor: 's3rver to answer',
      ready: async () => (await fetch(env.S3_ENDPOINT)).status > 0,
      stopTimeoutMs: 5_000,
    },
  );
  await checkS3(env).catch(async (error) => {
    await terminate(s3rver.pid, { timeoutMs: 2_000 });
    throw error;
  });
  return { env, port, ...s3rver };
}

/**
 * The S3 client settings the platform must use. The SDK's default (WHEN_SUPPORTED) sends a
 * streamed PutObject as aws-chunked with a trailing CRC32, which s3rver stores verbatim: the
 * object silently gains the chunk framing. WHEN_REQUIRED sends plain bodies; real S3 accepts both.
 */
export async function s3Client(env) {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A real PutObject, GetObject and DeleteObject in the bucket, so a broken store fails the start. */
export async function checkS3(env) {
  const { PutObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(env);
  const Key = `.launcher-check/${process.pid}-${Date.now()}`;
  try {
    await client.send(new PutObjectCommand({ Bucket: env.S3_BUCKET, Key, Body: 'ok' }));
    const got = await client.send(new GetObjectCommand({ Bucket: env.S3_BUCKET, Key }));
    const body = await got.Body.transformToString();
    if (body !== 'ok') throw new Error(`object store returned ${JSON.stringify(body)} for what was put`);
    await client.send(new DeleteObjectCommand({ Bucket: env.S3_BUCKET, Key }));
  } finally {
    client.destroy();
  }
}

/** Creates `bucket` when missing and deletes what is in it (the tests' bucket on a shared store). */
export async function freshBucket(env, bucket) {
  const sdk = await import('@aws-sdk/client-s3');
  const client = await s3Client(env);
  try {
    await client.send(new sdk.CreateBucketCommand({ Bucket: bucket })).catch((error) => {
      if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(error.name)) throw error;
    });
    for (;;) {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }));
      if (!page.Contents?.length) break;
      const Objects = page.Contents.map(({ Key }) => ({ Key }));
      await client.send(new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects } }));
    }
  } finally {
    client.destroy();
  }
}
