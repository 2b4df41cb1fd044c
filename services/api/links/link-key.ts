import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { newSecret } from '../../core/ids.js';

// A link's key is the secret in its address (/r/<key>). The room finds the link by the key's
// sha256; the key itself is kept only sealed (AES-256-GCM) so revealLink can show the address
// again. Sealed bytes: version (1) | IV (12) | tag (16) | ciphertext. The link's id is bound in as
// associated data, so a sealed key copied onto another row does not open.

/** 24 random bytes (192 bits), base64url, prefixed so a leaked address is recognisable. */
export const newLinkKey = (): string => newSecret('pp_lnk', 24);

const version = 1;
const ivBytes = 12;
const tagBytes = 16;
const label = 'demo-rooms/link-keys/v1';

/**
 * The AES-256 key that seals link keys: HKDF-SHA256 of APP_SECRET with a purpose label, so the
 * secret's other uses never share this key. The secret is read as text (lower-cased, as it is
 * hex), so none of it is lost however many digits it has.
 */
export function linkSealingKey(appSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appSecret.toLowerCase(), 'utf8'), Buffer.alloc(0), label, 32));
}

/** Seals `key` for the link `linkId`; a fresh random IV each time. */
export function sealLinkKey(sealingKey: Buffer, linkId: string, key: string): Buffer {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', sealingKey, iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(linkId, 'utf8'));
  const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), body]);
}

/** The key sealed for `linkId`; throws if the bytes were altered, belong to another link or another secret. */
export function openLinkKey(sealingKey: Buffer, linkId: string, sealed: Buffer): string {
  if (sealed.length < 1 + ivBytes + tagBytes || sealed[0] !== version) throw new Error('sealed link key: unknown format');
  const iv = sealed.subarray(1, 1 + ivBytes);
  const tag = sealed.subarray(1 + ivBytes, 1 + ivBytes + tagBytes);
  const decipher = createDecipheriv('aes-256-gcm', sealingKey, iv, { authTagLength: tagBytes });
  decipher.setAAD(Buffer.from(linkId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(1 + ivBytes + tagBytes)), decipher.final()]).toString('utf8');
}
