import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Secrets the platform must use or show again (a link's key, a webhook endpoint's signing
// secret) are kept only sealed with AES-256-GCM. Sealed bytes: version (1) | IV (12) | tag (16) |
// ciphertext. The owning row's id is bound in as associated data, so a sealed secret copied onto
// another row does not open.

const version = 1;
const ivBytes = 12;
const tagBytes = 16;

/**
 * The AES-256 key for one purpose: HKDF-SHA256 of APP_SECRET with the purpose's label, so the
 * secret's uses never share a key. The secret is read as text (lower-cased, as it is hex), so
 * none of it is lost however many digits it has.
 */
export function sealingKey(appSecret: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appSecret.toLowerCase(), 'utf8'), Buffer.alloc(0), label, 32));
}

/** Seals `secret` for the row `rowId`; a fresh random IV each time. */
export function sealSecret(key: Buffer, rowId: string, secret: string): Buffer {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(rowId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), body]);
}

/** The secret sealed for `rowId`; throws if the bytes were altered, belong to another row or another key. */
export function openSecret(key: Buffer, rowId: string, sealed: Buffer): string {
  if (sealed.length < 1 + ivBytes + tagBytes || sealed[0] !== version) throw new Error('sealed secret: unknown format');
  const iv = sealed.subarray(1, 1 + ivBytes);
  const tag = sealed.subarray(1 + ivBytes, 1 + ivBytes + tagBytes);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  decipher.setAAD(Buffer.from(rowId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(1 + ivBytes + tagBytes)), decipher.final()]).toString('utf8');
}
