// s3rver's filesystem store with its small files read and written by synchronous calls. Every
// object is three files (its bytes, their MD5, its metadata), and s3rver reaches each through
// fs-extra's promises: an open, a stat, a read and a close, each a round trip through libuv's
// thread pool and back to this thread's event loop, waiting its turn on a busy machine (a deploy
// runs the tool, the engine, the registry and this store on two cores). A registry request made
// ten to twenty such round trips and took 3-28 ms, where the calls themselves take microseconds
// on files this small (docs/scale.md, "Session 39"). Here an object's metadata and MD5, a small
// object's bytes and an upload's bookkeeping are read and written in place; an object above
// SMALL_BYTES still streams, and its PUT is answered once the file holds it. What lands on disk is s3rver's, byte for byte:
// the same paths, the same JSON, the same MD5s.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { copyFileSync, createWriteStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const require = createRequire(import.meta.url);
const S3Object = require('s3rver/lib/models/object.js');
const S3Bucket = require('s3rver/lib/models/bucket.js');
const S3Error = require('s3rver/lib/models/error.js');

/** Objects up to this size are read, written and copied whole, in place (bytes). */
export const SMALL_BYTES = 256 * 1024;

/** A small file's text (or bytes, with `encoding` null), or undefined when it is not there. */
export function readIfThere(file, encoding = 'utf8') {
  try {
    return readFileSync(file, encoding);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** A small request body, held whole; one longer than `limit` is refused before more of it is held. */
export async function bodyBytes(req, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw new S3Error('MaxMessageLengthExceeded', 'Your request was too big.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The metadata s3rver keeps of an object: the headers it allows and the x-amz-meta-* ones (its putMetadata). */
function storedMetadata(metadata) {
  const json = {};
  for (const name of S3Object.ALLOWED_METADATA) if (metadata[name] !== undefined) json[name] = metadata[name];
  for (const [name, value] of Object.entries(metadata)) if (name.startsWith('x-amz-meta-')) json[name] = value;
  return json;
}

/** Replaces the store's small-file methods with synchronous ones (see above); the others stay s3rver's. */
export function smallFilesInPlace(store) {
  // s3rver's getObject stays: it reads the metadata through getMetadata below, then streams the bytes.
  const streamedCopy = store.copyObject.bind(store);

  store.getBucket = async (bucket) => {
    const stats = statSync(store.getBucketPath(bucket), { throwIfNoEntry: false });
    return stats?.isDirectory() ? new S3Bucket(bucket, stats.birthtime) : null;
  };

  store.existsObject = async (bucket, key) =>
    statSync(store.getResourcePath(bucket, key, 'object'), { throwIfNoEntry: false }) !== undefined;

  // As s3rver's: throws ENOENT when the object is not there; makes the MD5 file when it is missing.
  store.getMetadata = async (bucket, key) => {
    const objectPath = store.getResourcePath(bucket, key, 'object');
    const stats = statSync(objectPath);
    const json = readIfThere(store.getResourcePath(bucket, key, 'metadata.json'));
    let md5 = readIfThere(`${objectPath}.md5`);
    if (md5 === undefined) {
      md5 = createHash('md5').update(readFileSync(objectPath)).digest('hex');
      writeFileSync(`${objectPath}.md5`, md5);
    }
    return {
      ...(json === undefined ? {} : JSON.parse(json)),
      etag: JSON.stringify(md5),
      'last-modified': stats.mtime.toUTCString(),
      'content-length': stats.size,
    };
  };

  /** A small object's bytes, read whole (the range cut from them); a large one's streamed by s3rver. */
  store.smallObject = async (bucket, key) => {
    const metadata = await store.getMetadata(bucket, key).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err)));
    if (!metadata || metadata['content-length'] > SMALL_BYTES) return { metadata, bytes: null };
    return { metadata, bytes: readFileSync(store.getResourcePath(bucket, key, 'object')) };
  };

  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    mkdirSync(path.dirname(objectPath), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    if (Buffer.isBuffer(object.content) && object.content.length <= SMALL_BYTES) {
      writeFileSync(objectPath, object.content);
      md5.update(object.content);
      size = object.content.length;
    } else {
      // Streamed, and answered only once the file holds every byte: s3rver's own putObject answers
      // when its hashing step has seen the last chunk, before the file's write stream has written
      // it, so a HEAD right after the PUT could find the object short (a 53 MB upload measured
      // 422 "received fewer bytes" once this store's HEAD stopped taking milliseconds).
      await pipeline(
        Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
        async function* (chunks) {
          for await (const chunk of chunks) {
            md5.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(objectPath),
      );
    }
    const digest = md5.digest('hex');
    store.putMetadataNow(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };

  /** s3rver's putMetadata, in place. */
  store.putMetadataNow = (bucket, key, metadata, md5) => {
    if (md5) writeFileSync(store.getResourcePath(bucket, key, 'object.md5'), md5);
    writeFileSync(store.getResourcePath(bucket, key, 'metadata.json'), JSON.stringify(storedMetadata(metadata), null, 2));
  };
  store.putMetadata = async (bucket, key, metadata, md5) => store.putMetadataNow(bucket, key, metadata, md5);

  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const source = store.getResourcePath(srcBucket, srcKey, 'object');
    const target = store.getResourcePath(destBucket, destKey, 'object');
    if (replacementMetadata || source === target || statSync(source).size > SMALL_BYTES)
      return streamedCopy(srcBucket, srcKey, destBucket, destKey, replacementMetadata);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(source, target);
    for (const resource of ['metadata.json', 'object.md5'])
      copyFileSync(store.getResourcePath(srcBucket, srcKey, resource), store.getResourcePath(destBucket, destKey, resource));
    return store.getMetadata(destBucket, destKey);
  };

  store.initiateUpload = async (bucket, key, uploadId, metadata) => {
    const uploadDir = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    mkdirSync(uploadDir, { recursive: true });
    writeFileSync(path.join(uploadDir, 'key'), key);
    writeFileSync(path.join(uploadDir, 'metadata'), JSON.stringify(metadata));
  };
}
