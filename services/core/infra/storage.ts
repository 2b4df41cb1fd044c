import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  NotFound,
  NoSuchKey,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from './config.js';

// The object store behind uploads and build files. Bytes are always streamed: nothing here holds
// a whole object in memory.

export interface Storage {
  bucket: string;
  client: S3Client;
  put(key: string, body: Readable | Buffer, opts?: { contentType?: string; size?: number }): Promise<void>;
  get(key: string, range?: string): Promise<{ body: Readable; size: number; contentType?: string; etag?: string } | null>;
  head(key: string): Promise<{ size: number; contentType?: string; etag?: string } | null>;
  list(prefix: string): Promise<{ key: string; size: number; etag?: string }[]>;
  deletePrefix(prefix: string): Promise<number>;
  /** A URL that PUTs exactly `size` bytes of `contentType` at `key` until `expiresIn` seconds pass. */
  presignPut(key: string, opts: { size: number; contentType: string; expiresIn: number }): Promise<string>;
  /** Starts a multipart upload at `key`; answers the store's upload id. */
  startMultipart(key: string, contentType: string): Promise<string>;
  /** A URL that PUTs part `partNumber` (from 1) of exactly `size` bytes until `expiresIn` seconds pass. */
  presignPart(key: string, multipartId: string, part: { partNumber: number; size: number; expiresIn: number }): Promise<string>;
  /** Assembles the listed parts into the object at `key`. */
  completeMultipart(key: string, multipartId: string, parts: { partNumber: number; etag: string }[]): Promise<void>;
  /** Drops a multipart upload and its parts; one already gone is not an error. */
  abortMultipart(key: string, multipartId: string): Promise<void>;
}

/**
 * What a presigned URL signs besides the host: the SDK's presigner leaves Content-Type unsigned
 * by default, and Content-Length is only a limit when it is signed (the store then refuses any
 * other length).
 */
const signedUploadHeaders = new Set(['content-length', 'content-type']);

type StorageConfig = Pick<
  Config,
  'S3_ENDPOINT' | 'S3_PUBLIC_ENDPOINT' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'
>;

/** A client of the store at `endpoint`, with the config's region, addressing and credentials. */
function s3Client(config: StorageConfig, endpoint: string | undefined): S3Client {
  return new S3Client({
    endpoint,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: config.S3_ACCESS_KEY_ID
      ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY ?? '' }
      : undefined,
    // Checksums only where S3 demands them: S3-compatible stores do not all speak the newer
    // aws-chunked trailer encoding, and a streamed body cannot be hashed up front anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** One object written: a single streamed PUT when its size is known, else a multipart upload. */
async function putObject(
  client: S3Client,
  bucket: string,
  key: string,
  body: Parameters<Storage['put']>[1],
  opts: NonNullable<Parameters<Storage['put']>[2]>,
): Promise<void> {
  // With a known size a single streamed PUT holds nothing in memory; S3 takes up to 5 GB so.
  if (opts.size !== undefined) {
    const broken = body instanceof Readable ? abortWhenBroken(body) : undefined;
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: opts.contentType, ContentLength: opts.size }),
      { abortSignal: broken?.signal },
    );
    return;
  }
  // Upload switches to multipart above 5 MiB, keeping at most queueSize parts in memory.
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body, ContentType: opts.contentType, ContentLength: opts.size },
    queueSize: 2,
    partSize: 8 * 1024 * 1024,
    leavePartsOnError: false,
  });
  await upload.done();
}

/** Every object under `prefix`, page by page. */
async function listObjects(client: S3Client, bucket: string, prefix: string) {
  const found: { key: string; size: number; etag?: string }[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }));
    for (const o of page.Contents ?? []) found.push({ key: o.Key!, size: Number(o.Size ?? 0), etag: o.ETag });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return found;
}

export function createStorage(config: StorageConfig): Storage {
  const client = s3Client(config, config.S3_ENDPOINT);
  // Presigned URLs name the address builders reach (the signature covers the host); no request is sent through it.
  const signer =
    config.S3_PUBLIC_ENDPOINT && config.S3_PUBLIC_ENDPOINT !== config.S3_ENDPOINT ? s3Client(config, config.S3_PUBLIC_ENDPOINT) : client;
  const bucket = config.S3_BUCKET;

  return {
    bucket,
    client,
    put: (key, body, opts = {}) => putObject(client, bucket, key, body, opts),
    async get(key, range) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
        return {
          body: out.Body as Readable,
          size: Number(out.ContentLength ?? 0),
          contentType: out.ContentType,
          etag: out.ETag,
        };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async head(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType, etag: out.ETag };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    list: (prefix) => listObjects(client, bucket, prefix),
    async deletePrefix(prefix) {
      const keys = await this.list(prefix);
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000).map((k) => ({ Key: k.key }));
        await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }));
      }
      return keys.length;
    },
    presignPut(key, opts) {
      const command = new PutObjectCommand({ Bucket: bucket, Key: key, ContentLength: opts.size, ContentType: opts.contentType });
      return getSignedUrl(signer, command, { expiresIn: opts.expiresIn, signableHeaders: signedUploadHeaders });
    },
    async startMultipart(key, contentType) {
      const out = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
      return out.UploadId!;
    },
    presignPart(key, multipartId, part) {
      const command = new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: multipartId,
        PartNumber: part.partNumber,
        ContentLength: part.size,
      });
      return getSignedUrl(signer, command, { expiresIn: part.expiresIn, signableHeaders: signedUploadHeaders });
    },
    async completeMultipart(key, multipartId, parts) {
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: multipartId,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
        }),
      );
    },
    async abortMultipart(key, multipartId) {
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: multipartId }));
      } catch (err) {
        if (!isMissing(err) && (err as { name?: string })?.name !== 'NoSuchUpload') throw err;
      }
    },
  };
}

/**
 * The SDK only pipes a streamed body into its request: when the body fails or closes before its
 * end (an uploader who went away, a PUT the api cut at its shutdown deadline), the request would
 * wait for the rest of the declared length for ever. This aborts it instead, so the write fails.
 */
function abortWhenBroken(body: Readable): AbortController {
  const controller = new AbortController();
  body.once('error', (err) => controller.abort(err));
  body.once('close', () => {
    if (!body.readableEnded) controller.abort(new Error('the body closed before its end'));
  });
  return controller;
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    err instanceof NotFound ||
    err instanceof NoSuchKey ||
    e?.name === 'NotFound' ||
    e?.name === 'NoSuchKey' ||
    e?.$metadata?.httpStatusCode === 404
  );
}
