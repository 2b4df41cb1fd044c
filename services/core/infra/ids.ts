import { createHash, randomBytes } from 'node:crypto';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are opaque to clients; one that is not a UUID can name nothing, so it is simply not found. */
export const isUuid = (id: string): boolean => uuidPattern.test(id);

/** A random secret of `bytes` bytes, base64url, with a readable prefix saying what it is. */
export const newSecret = (prefix: string, bytes = 32): string => `${prefix}_${randomBytes(bytes).toString('base64url')}`;

/** Secrets are stored only as this hash; the secret itself is shown once and never kept. */
export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret).digest();
