import { z } from 'zod';
import { DateTime } from '../common.js';

/** A direct upload is cut in parts of this size (8 MiB), the last one shorter; up to it, one PUT. */
export const directPartBytes = 8 * 1024 * 1024;
/** 512 MB in parts of 8 MiB: 64. */
export const maxDirectParts = 64;

/** One presigned PUT: exactly `sizeBytes` bytes, with the upload's `contentType`, before `expiresAt`. */
export const DirectPart = z.object({
  partNumber: z.number().int().min(1).max(maxDirectParts),
  url: z.string(),
  sizeBytes: z.number().int().positive(),
});
export type DirectPart = z.infer<typeof DirectPart>;

/**
 * Where a direct upload's bytes go: the object store's presigned URLs, which carry their own
 * authority (no bearer token goes with them). `multipart` false: one part, the whole archive;
 * true: the parts in order, each sent (and retried) on its own, then completeUpload with their ETags.
 */
export const DirectUpload = z.object({
  multipart: z.boolean(),
  contentType: z.string(),
  expiresAt: DateTime,
  parts: z.array(DirectPart).min(1).max(maxDirectParts),
});
export type DirectUpload = z.infer<typeof DirectUpload>;

/** A part as the store took it: its number and the ETag header of the store's answer. */
export const UploadedPart = z.object({
  partNumber: z.number().int().min(1).max(maxDirectParts),
  etag: z.string().min(1).max(200),
});
