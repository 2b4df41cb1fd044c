// Types of s3-small-files.mjs that TypeScript imports (test/platform/local-store-direct.test.ts).
/** Objects up to this size are read, written and copied whole, in place (bytes). */
export const SMALL_BYTES: number;
/** Replaces the store's small-file methods with synchronous ones; the others stay s3rver's. */
export function smallFilesInPlace(store: object): void;
