// s3rver's object deletion, safe when several run at once. After removing an object's files,
// s3rver 3.7 climbs its folders with a synchronous readdir of each and an rmdir of every empty
// one; DeleteObjects deletes its keys all at once, so two keys of one folder race up the same
// folders, and the one that finds a folder its sibling just removed throws (ENOENT): the whole
// request answers 500. Distribution deletes an upload's folder (its data, start time and hash
// states) with one DeleteObjects after every blob it receives, so each push met a 500 and its S3
// client's retry about 50 ms later. Here each folder is only asked to go: one that is already gone
// or not empty ends the climb, and whoever empties a folder last removes it. A key whose parts
// lead out of the bucket ("../") deletes nothing: no file and no folder outside it is touched.
import { rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/** What ends the climb: a folder a concurrent delete removed, or one that still holds something. */
const CLIMB_ENDS = new Set(['ENOENT', 'ENOTEMPTY', 'EEXIST']);

/** Replaces `store.deleteObject` (s3rver's FilesystemStore) with one whose folder clean-up tolerates others at once. */
export function tolerantDeletes(store) {
  store.deleteObject = async (bucket, key) => {
    const bucketPath = store.getBucketPath(bucket);
    const inBucket = (file) => path.resolve(file).startsWith(`${path.resolve(bucketPath)}${path.sep}`);
    const files = ['object', 'object.md5', 'metadata.json'].map((resource) => store.getResourcePath(bucket, key, resource));
    if (!files.every(inBucket)) return;
    // Synchronous calls: three unlinks and a few rmdirs of small files take microseconds, where
    // each through the thread pool waited its turn on a busy machine (s3-small-files.mjs).
    for (const file of files) {
      try {
        unlinkSync(file);
      } catch (err) {
        if (err.code !== 'ENOENT') throw err;
      }
    }
    // The last part is the object's file name, not a folder.
    const folders = key.split('/').slice(0, -1);
    while (folders.length && inBucket(path.join(bucketPath, ...folders))) {
      try {
        rmdirSync(path.join(bucketPath, ...folders));
      } catch (err) {
        if (CLIMB_ENDS.has(err.code)) return;
        throw err;
      }
      folders.pop();
    }
  };
}
