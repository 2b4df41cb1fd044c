import { newSecret } from '../../core/infra/ids.js';
import { openSecret, sealSecret, sealingKey } from '../../core/infra/sealed-secret.js';

// A link's key is the secret in its address (/r/<key>). The room finds the link by the key's
// sha256; the key itself is kept only sealed (AES-256-GCM) so revealLink can show the address
// again (services/core/infra/sealed-secret.ts); the link's id is bound in.

/** 24 random bytes (192 bits), base64url, prefixed so a leaked address is recognisable. */
export const newLinkKey = (): string => newSecret('pp_lnk', 24);

const label = 'demo-rooms/link-keys/v1';

/** The AES-256 key that seals link keys (services/core/infra/sealed-secret.ts), under the link keys' own label. */
export const linkSealingKey = (appSecret: string): Buffer => sealingKey(appSecret, label);

/** Seals `key` for the link `linkId`; a fresh random IV each time. */
export const sealLinkKey = (key: Buffer, linkId: string, linkKey: string): Buffer => sealSecret(key, linkId, linkKey);

/** The key sealed for `linkId`; throws if the bytes were altered, belong to another link or another secret. */
export const openLinkKey = (key: Buffer, linkId: string, sealed: Buffer): string => openSecret(key, linkId, sealed);
