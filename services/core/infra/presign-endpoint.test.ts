import { describe, expect, it } from 'vitest';
import { createStorage } from './storage.js';

// Presigned upload URLs name the address a builder's machine reaches (S3_PUBLIC_ENDPOINT), while
// the platform's own calls keep the internal one (compose's `http://s3:9000`). Signing needs no
// store: these run without one.

const base = {
  S3_ENDPOINT: 'http://s3:9000',
  S3_BUCKET: 'rooms',
  S3_REGION: 'us-east-1',
  S3_ACCESS_KEY_ID: 'key',
  S3_SECRET_ACCESS_KEY: 'secret',
  S3_FORCE_PATH_STYLE: true,
};

describe('presigned upload URLs', () => {
  it('name S3_PUBLIC_ENDPOINT when it is set, for a PUT and for a part', async () => {
    const storage = createStorage({ ...base, S3_PUBLIC_ENDPOINT: 'https://uploads.example.test' });
    const put = new URL(await storage.presignPut('uploads/a.tgz', { size: 10, contentType: 'application/gzip', expiresIn: 60 }));
    expect(put.origin).toBe('https://uploads.example.test');
    expect(put.pathname).toBe('/rooms/uploads/a.tgz');
    expect(put.searchParams.get('X-Amz-SignedHeaders')).toContain('host');
    const part = new URL(await storage.presignPart('uploads/b.tgz', 'mp-1', { partNumber: 2, size: 8, expiresIn: 60 }));
    expect(part.origin).toBe('https://uploads.example.test');
    expect(part.searchParams.get('partNumber')).toBe('2');
    expect(await storage.client.config.endpoint?.()).toMatchObject({ hostname: 's3', port: 9000 });
  });

  it('name S3_ENDPOINT when no public address is set', async () => {
    const storage = createStorage(base);
    const put = new URL(await storage.presignPut('uploads/a.tgz', { size: 10, contentType: 'application/gzip', expiresIn: 60 }));
    expect(put.origin).toBe('http://s3:9000');
  });
});
