import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { createStorage, type Storage } from '../../core/storage.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';
import { testEnv } from '../../../test/support/services.js';
import { createStaticFiles } from './static-files.js';

// The first request of a new static build does not wait for the listing of the build's whole
// prefix (work that grows with the number of files: the trial's first `index.html` took 36.5 s).
// The listing here is held until the test lets it go: the first requests are answered all the
// same, from the store, and once the index is in the store is asked nothing more.

const storage = createStorage(loadConfig(testEnv()));
const buildId = randomUUID();
const prefix = buildFilesPrefix(buildId);
const files: Record<string, string> = {
  'index.html': '<!doctype html><title>Home</title><p>home</p>',
  'docs/index.html': '<!doctype html><title>Docs</title>',
  ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`assets/chunk-${i}.js`, `export const n = ${i};`])),
};
afterAll(async () => { await storage.deletePrefix(prefix); });

/** The real store, with its listing held until `release` and its calls counted. */
function heldStore(): { store: Storage; release(): void; calls: { list: number; head: number } } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const calls = { list: 0, head: 0 };
  const store: Storage = {
    ...storage,
    list: async (p) => { calls.list++; await held; return storage.list(p); },
    head: async (k) => { calls.head++; return storage.head(k); },
  };
  return { store, release, calls };
}

describe('a new static build', () => {
  it('is served before its listing ends, and from its index after', async () => {
    for (const [path, text] of Object.entries(files)) await storage.put(prefix + path, Buffer.from(text), { contentType: 'text/plain' });
    const { store, release, calls } = heldStore();
    const static_ = createStaticFiles(store);

    // The listing is held: nothing below could finish if a request waited for it.
    const first = await static_.find(buildId, '/');
    expect(first).toMatchObject({ kind: 'file', path: 'index.html' });
    const body = await static_.body(buildId, first as Extract<typeof first, { kind: 'file' }>, { range: null });
    expect(body.kind === 'buffer' && body.bytes.toString()).toBe(files['index.html']);
    expect(await static_.find(buildId, '/docs')).toEqual({ kind: 'folder', location: '/docs/' });
    expect(await static_.find(buildId, '/nothing-here.js')).toEqual({ kind: 'missing' });
    // Many viewers' first requests start one listing between them.
    expect(calls.list).toBe(1);

    release();
    await static_.indexOf(buildId);
    const heads = calls.head;
    expect(await static_.find(buildId, '/assets/chunk-7.js')).toMatchObject({ kind: 'file', path: 'assets/chunk-7.js' });
    expect(await static_.find(buildId, '/nothing-here.js')).toEqual({ kind: 'missing' });
    expect(calls.head).toBe(heads);
    expect(calls.list).toBe(1);
  });

  it('gives the same ETag from a lookup of the file as from the listing', async () => {
    const listed = createStaticFiles(storage);
    await listed.indexOf(buildId);
    const { store } = heldStore();
    const looked = createStaticFiles(store);
    expect(await looked.find(buildId, '/assets/chunk-3.js')).toEqual(await listed.find(buildId, '/assets/chunk-3.js'));
  });
});
