import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linkSealingKey, newLinkKey, openLinkKey, sealLinkKey } from './link-key.js';

const secret = 'ab'.repeat(32);
const key = linkSealingKey(secret);

describe('link keys', () => {
  it('are url-safe, prefixed and carry at least 128 random bits', () => {
    const k = newLinkKey();
    expect(k).toMatch(/^pp_lnk_[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(k.slice('pp_lnk_'.length), 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(newLinkKey()).not.toBe(k);
  });

  it('derives one 256-bit sealing key per secret, case-insensitively, different for another secret', () => {
    expect(key).toHaveLength(32);
    expect(linkSealingKey(secret.toUpperCase()).equals(key)).toBe(true);
    expect(linkSealingKey('cd'.repeat(32)).equals(key)).toBe(false);
  });

  it('round-trips a key', () => {
    const id = randomUUID();
    const k = newLinkKey();
    expect(openLinkKey(key, id, sealLinkKey(key, id, k))).toBe(k);
  });

  it('uses a different IV each time, so the same key never seals the same way twice', () => {
    const id = randomUUID();
    const k = newLinkKey();
    const a = sealLinkKey(key, id, k);
    const b = sealLinkKey(key, id, k);
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.toString('latin1')).not.toContain(k);
  });

  it('detects tampering with any byte, another link id, another secret and a cut-short value', () => {
    const id = randomUUID();
    const sealed = sealLinkKey(key, id, newLinkKey());
    for (let i = 0; i < sealed.length; i++) {
      const bad = Buffer.from(sealed);
      bad[i] ^= 0x01;
      expect(() => openLinkKey(key, id, bad)).toThrow();
    }
    expect(() => openLinkKey(key, randomUUID(), sealed)).toThrow();
    expect(() => openLinkKey(linkSealingKey('cd'.repeat(32)), id, sealed)).toThrow();
    expect(() => openLinkKey(key, id, sealed.subarray(0, 20))).toThrow();
    expect(() => openLinkKey(key, id, sealed.subarray(0, sealed.length - 1))).toThrow();
  });
});
