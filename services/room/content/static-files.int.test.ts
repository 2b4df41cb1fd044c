import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/infra/config.js';
import { createStorage, type Storage } from '../../core/infra/storage.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';
import { testEnv } from '../../../test/support/services.js';
import { createStaticFiles } from './static-files.js';

// The first request of a new static build does not wait on work that grows with the build: the
// trial's first `index.html` waited 36.5 s for a listing of the build's whole prefix. Here the
// store refuses to list: every request is served all the same, each path looked up once.

const storage = createStorage(loadConfig(testEnv()));
const buildId = randomUUID();
const prefix = buildFilesPrefix(buildId);
const files: Record<string, string> = {
  'index.html': '<!doctype html><title>Home</title><p>home</p>',
  'docs/index.html': '<!doctype html><title>Docs</title>',
  ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`assets/chunk-${i}.js`, `export const n = ${i};`])),
};
afterAll(async () => {
  await storage.deletePrefix(prefix);
});

/** The real store, refusing to list, with its lookups counted. */
function countingStore(): { store: Storage; calls: { list: number; head: number } } {
  const calls = { list: 0, head: 0 };
  const store: Storage = {
    ...storage,
    list: async () => {
      calls.list++;
      throw new Error('a request listed the whole build');
    },
    head: async (k) => {
      calls.head++;
      return storage.head(k);
    },
  };
  return { store, calls };
}

describe('a new static build', () => {
  it('is served without listing the build, each path looked up once', async () => {
    for (const [path, text] of Object.entries(files)) await storage.put(prefix + path, Buffer.from(text), { contentType: 'text/plain' });
    const { store, calls } = countingStore();
    const static_ = createStaticFiles(store);

    const first = await static_.find(buildId, '/');
    expect(first).toMatchObject({ kind: 'file', path: 'index.html', entry: { size: files['index.html'].length } });
    const body = await static_.body(buildId, first as Extract<typeof first, { kind: 'file' }>, { range: null });
    expect(body.kind === 'buffer' && body.bytes.toString()).toBe(files['index.html']);
    expect(await static_.find(buildId, '/docs')).toEqual({ kind: 'folder', location: '/docs/' });
    expect(await static_.find(buildId, '/nothing-here.js')).toEqual({ kind: 'missing' });
    expect(await static_.find(buildId, '/assets/chunk-7.js')).toMatchObject({ kind: 'file', path: 'assets/chunk-7.js' });
    expect(calls.list).toBe(0);

    // Asked again (and by viewers asking at once), the store is asked nothing more.
    const heads = calls.head;
    await Promise.all([
      static_.find(buildId, '/'),
      static_.find(buildId, '/'),
      static_.find(buildId, '/nothing-here.js'),
      static_.find(buildId, '/assets/chunk-7.js'),
    ]);
    expect(calls.head).toBe(heads);
    const together = await Promise.all(Array.from({ length: 5 }, () => static_.find(buildId, '/assets/chunk-8.js')));
    expect(together.every((f) => f.kind === 'file')).toBe(true);
    expect(calls.head).toBe(heads + 1);
  });

  it('gives each file the ETag the store has for it', async () => {
    const listed = new Map((await storage.list(prefix)).map((o) => [o.key.slice(prefix.length), o.etag]));
    const found = await createStaticFiles(countingStore().store).find(buildId, '/assets/chunk-3.js');
    expect(found).toMatchObject({ kind: 'file', entry: { etag: listed.get('assets/chunk-3.js') } });
  });
});
