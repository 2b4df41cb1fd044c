// s3rver's object listing, walked from the folder the prefix ends in rather than from the bucket's
// root. s3rver 3.7 walks down from the root with a stat of every entry on the way, so each listing
// of a blob (`docker/registry/v2/blobs/sha256/7a/<digest>/`) stats the 256 folders of `sha256/`
// and everything else beside the path: 2-5 ms of the store's one thread per listing, and
// Distribution lists (its Stat) about twenty times a push. Keys and their order are s3rver's: the
// same walk and filters, started lower; nothing above the prefix's folder can hold a key that
// starts with the prefix.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import S3Object from 's3rver/lib/models/object.js';

const OBJECT_SUFFIX = '._S3rver_object';

/** Replaces `store.listObjects` (s3rver's FilesystemStore) with the walk from the prefix's folder. */
export function listFromPrefixFolder(store) {
  store.listObjects = async (bucket, { delimiter = '', startAfter = '', prefix = '', maxKeys = Infinity } = {}) => {
    const bucketPath = store.getBucketPath(bucket);
    const startAfterPath = `${bucketPath}/${startAfter}`;
    const prefixPath = `${bucketPath}/${prefix}`;
    // The folder whose entries may start with the prefix's last part: "a/b/c" → "a/b", "a/b/" → "a/b".
    // A prefix that is not a plain path ("..", ".", "//") starts at the bucket, as s3rver does: no
    // stored key can match it, and a walk from there never leaves the bucket.
    const folder = prefixPath.slice(0, prefixPath.lastIndexOf('/'));
    const from = path.posix.normalize(folder) === folder ? folder : bucketPath;
    const enter = (dirPath) => {
      // as s3rver: no folder wholly before startAfter, none beneath a common prefix, none beside the prefix
      if (dirPath < startAfterPath && !startAfterPath.includes(dirPath)) return false;
      if (dirPath.startsWith(prefixPath)) return !(delimiter && dirPath.slice(prefixPath.length).includes(delimiter));
      return prefixPath.startsWith(dirPath);
    };
    const commonPrefixes = new Set();
    const keys = [];
    let isTruncated = false;
    for (const file of walk(from, enter)) {
      if (!file.endsWith(OBJECT_SUFFIX)) continue;
      const key = file.slice(bucketPath.length + 1, -OBJECT_SUFFIX.length);
      if (key <= startAfter || !key.startsWith(prefix)) continue;
      const at = delimiter ? key.slice(prefix.length).indexOf(delimiter) : -1;
      if (at !== -1) {
        commonPrefixes.add(key.slice(0, prefix.length + at + 1));
        continue;
      }
      if (keys.length >= maxKeys) {
        isTruncated = true;
        break;
      }
      keys.push(key);
    }
    const metadata = await Promise.all(
      keys.map((key) => store.getMetadata(bucket, key).catch((err) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)))),
    );
    return {
      objects: keys.flatMap((key, i) => (metadata[i] ? [new S3Object(bucket, key, null, metadata[i])] : [])),
      commonPrefixes: [...commonPrefixes].sort(),
      isTruncated,
    };
  };
}

/** s3rver's walk (utils.walk), from `dir`; a folder that is not there holds nothing. */
function* walk(dir, enter) {
  let names;
  try {
    names = readdirSync(dir);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return;
    throw err;
  }
  for (const name of names) {
    const file = path.posix.join(dir, name);
    const stats = statSync(file, { throwIfNoEntry: false });
    if (!stats) continue; // removed meanwhile
    if (!stats.isDirectory()) yield file;
    else if (enter(file)) yield* walk(file, enter);
  }
}
