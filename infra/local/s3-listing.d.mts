// Types of s3-listing.mjs that TypeScript imports (test/platform/local-store-listing.test.ts).
/** Replaces `store.listObjects` (s3rver's FilesystemStore) with the walk from the prefix's folder. */
export function listFromPrefixFolder(store: object): void;
