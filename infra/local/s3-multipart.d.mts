// Types of the s3-multipart.mjs listing that TypeScript imports (test/platform/local-store-listing.test.ts).
/** GET /<bucket>?uploads[&prefix=]: the open uploads whose key starts with the prefix, as S3's XML. */
export function listMultipartUploads(store: object, bucket: string, prefix?: string): Promise<{ status: number; body: string }>;
