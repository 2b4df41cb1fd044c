import { createHash, createPrivateKey, createPublicKey, randomUUID, sign, verify, type KeyObject } from 'node:crypto';

// Tokens for the image registry (CNCF Distribution's `auth.token`): JWTs signed with ES256 by a
// key the platform holds, whose certificate is the registry's `rootcertbundle`. The registry
// finds the key by the header's `kid`, which must be libtrust's key id of the public key
// (docker/libtrust keyIDFromCryptoKey: the first 240 bits of the SHA-256 of its DER SPKI, base32,
// in twelve groups of four joined by colons).

/** One grant, as the token's `access` claim lists it (Docker token specification). */
export interface RegistryAccess {
  type: 'repository';
  name: string;
  /** `delete` only ever in the platform's own tokens (the sweep's manifest deletion). */
  actions: ('pull' | 'push' | 'delete')[];
}

export interface RegistryTokenKey {
  privateKey: KeyObject;
  kid: string;
}

/** The name the registry and its tokens know each other by (`auth.token.service` and `issuer`). */
export const REGISTRY_SERVICE = 'demo-rooms-registry';
export const REGISTRY_ISSUER = 'demo-rooms';
/**
 * The audience of a workspace's pull login (registry-pull.ts): not the registry's, so the registry
 * honours none, and the token endpoint takes as a login only what carries it (never a token it issued).
 */
export const PULL_LOGIN_AUDIENCE = 'demo-rooms-pull-login';

/**
 * How long past its `exp` a token may still be honoured (s): Distribution accepts one up to a
 * minute late (its leeway), and clocks differ a little. The garbage collection waits this beyond
 * the longest push token's lifetime.
 */
export const registryTokenGraceSeconds = 120;

/** The repository a project's pushed images live in: one per project, under its workspace. */
export const repositoryOf = (workspaceId: string, projectId: string) => `${workspaceId}/${projectId}`;

export function libtrustKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const digest = createHash('sha256').update(der).digest().subarray(0, 30);
  const b32 = base32(digest);
  return b32.match(/.{4}/g)!.join(':');
}

export function registryTokenKey(pem: string): RegistryTokenKey {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('the registry token key must be an EC P-256 private key (ES256)');
  }
  return { privateKey, kid: libtrustKeyId(createPublicKey(privateKey)) };
}

/** A signed token for `subject` granting `access`, valid from a minute ago (clock skew) for `ttlSeconds`. */
export function signRegistryToken(
  key: RegistryTokenKey,
  claims: { subject: string; access: RegistryAccess[]; ttlSeconds: number; now?: Date; audience?: string },
): { token: string; issuedAt: string; expiresIn: number } {
  const now = Math.floor((claims.now ?? new Date()).getTime() / 1000);
  const header = { alg: 'ES256', typ: 'JWT', kid: key.kid };
  const payload = {
    iss: REGISTRY_ISSUER,
    sub: claims.subject,
    aud: claims.audience ?? REGISTRY_SERVICE,
    exp: now + claims.ttlSeconds,
    nbf: now - 60,
    iat: now,
    jti: randomUUID(),
    access: claims.access,
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  // JWS wants the raw r||s pair, not DER.
  const signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return {
    token: `${input}.${signature.toString('base64url')}`,
    issuedAt: new Date(now * 1000).toISOString(),
    expiresIn: claims.ttlSeconds,
  };
}

const b64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * The claims of a token this key signed for `audience` (the registry's unless told), still valid
 * at `now`; null for anything else (another key or audience, expired, not a token).
 */
export function verifyRegistryToken(
  key: RegistryTokenKey,
  token: string,
  now = new Date(),
  audience = REGISTRY_SERVICE,
): { sub: string; access: RegistryAccess[]; issuedAt: Date } | null {
  const parts = token.split('.');
  if (parts.length !== 3 || token.length > 8192) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: string; kid?: string };
    if (header.alg !== 'ES256' || header.kid !== key.kid) return null;
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: createPublicKey(key.privateKey), dsaEncoding: 'ieee-p1363' },
      Buffer.from(parts[2], 'base64url'),
    );
    if (!signed) return null;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const at = Math.floor(now.getTime() / 1000);
    if (claims.iss !== REGISTRY_ISSUER || claims.aud !== audience || typeof claims.sub !== 'string') return null;
    if (typeof claims.exp !== 'number' || claims.exp <= at || typeof claims.nbf !== 'number' || claims.nbf > at) return null;
    if (typeof claims.iat !== 'number') return null;
    return { sub: claims.sub, access: (claims.access as RegistryAccess[]) ?? [], issuedAt: new Date(claims.iat * 1000) };
  } catch {
    return null;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** RFC 4648 base32 without padding (30 bytes make exactly 48 characters). */
function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}
