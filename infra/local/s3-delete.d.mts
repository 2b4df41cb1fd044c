// Types of s3-delete.mjs that TypeScript imports (test/platform/local-store-delete.test.ts).
/** Replaces `store.deleteObject` (s3rver's FilesystemStore) with one whose folder clean-up tolerates others at once. */
export function tolerantDeletes(store: object): void;
